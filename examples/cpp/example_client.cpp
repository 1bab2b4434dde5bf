// Gets a token, lists the organizations and points their webhook at your URL,
// with the C++ layer (iikocloud.hpp). Same environment as examples/c/example_client.c:
//   IIKO_BASE_URL, IIKO_APP_ID, IIKO_CLIENT_SECRET, IIKO_API_KEY (or IIKO_API_LOGIN),
//   WEBHOOK_URL, WEBHOOK_TOKEN.
// Build: c++ -std=c++17 example_client.cpp $(pkg-config --cflags --libs iikocloud)
#include <iikocloud.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>

static const char *env(const char *name) { return std::getenv(name); }

int main() {
    const char *hook_url = env("WEBHOOK_URL");
    const char *hook_token = env("WEBHOOK_TOKEN");
    bool v2 = env("IIKO_APP_ID") && env("IIKO_CLIENT_SECRET") && env("IIKO_API_KEY");
    if ((!v2 && !env("IIKO_API_LOGIN")) || !hook_url || !hook_token) {
        std::cerr << "set IIKO_APP_ID, IIKO_CLIENT_SECRET and IIKO_API_KEY (or IIKO_API_LOGIN),\n"
                     "WEBHOOK_URL and WEBHOOK_TOKEN; IIKO_BASE_URL is optional\n";
        return 2;
    }
    try {
        iiko::ClientOptions options;
        if (v2) {
            options.v2(env("IIKO_APP_ID"), env("IIKO_CLIENT_SECRET"), env("IIKO_API_KEY"));
        } else {
            options.api_login(env("IIKO_API_LOGIN"));
        }
        if (env("IIKO_BASE_URL")) {
            options.base_url(env("IIKO_BASE_URL"));
        }
        iiko::Client client(options);

        iiko::Token token = client.access_token();
        auto left = std::chrono::duration_cast<std::chrono::seconds>(
            token.expires_at - std::chrono::system_clock::now());
        std::cout << "libiikocloud " << iiko::version() << "\ntoken: " << token.value.size()
                  << " characters, valid for " << left.count() << " s\n";

        iiko::Organizations orgs = client.organizations();
        std::cout << orgs.items.size() << " organizations\n";
        for (const auto &org : orgs.items) {
            std::cout << "  " << org.id << "  " << org.name.value_or("(no name)") << "\n";
        }
        for (const auto &org : orgs.items) {
            // Build the JSON with your JSON library in real code (escaping).
            client.update_webhook_settings(
                std::string("{\"organizationId\":\"") + org.id + "\",\"webHooksUri\":\"" +
                hook_url + "\",\"authToken\":\"" + hook_token + "\"}");
            client.webhook_settings(org.id); // holds the token in clear: not printed
            std::cout << "webhook of " << org.id << " set to " << hook_url << "\n";
        }
        return 0;
    } catch (const iiko::Error &e) {
        std::cerr << "failed: " << e.what() << " (" << iiko::status_str(e.status()) << ")\n";
        if (e.correlation_id()) {
            std::cerr << "  correlationId: " << *e.correlation_id() << "\n";
        }
        return 1;
    }
}
