/* Every operation through iiko::op: syncs the menu, creates a delivery order
 * and waits for its command; a failed command is an iiko::CommandError.
 *
 *   IIKO_BASE_URL=http://127.0.0.1:8787 IIKO_APP_ID=... IIKO_CLIENT_SECRET=... \
 *   IIKO_API_KEY=... ORG_ID=... TERMINAL_GROUP_ID=... PRODUCT_ID=... ./example_operations
 *
 * Build: c++ -std=c++17 example_operations.cpp $(pkg-config --cflags --libs iikocloud) */
#include <iikocloud.hpp>

#include <cstdlib>
#include <iostream>
#include <string>

static std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v != nullptr ? v : "";
}

int main() {
    try {
        iiko::ClientOptions options;
        options.v2(env("IIKO_APP_ID"), env("IIKO_CLIENT_SECRET"), env("IIKO_API_KEY"));
        if (!env("IIKO_BASE_URL").empty()) {
            options.base_url(env("IIKO_BASE_URL"));
        }
        iiko::Client client(options);
        const std::string org = env("ORG_ID");
        std::string menu = iiko::op::nomenclature(client, "{\"organizationId\":\"" + org + "\"}");
        std::cout << "menu: " << menu.size() << " bytes of JSON\n";

        iiko::CallOptions wait;
        wait.wait_timeout = std::chrono::seconds(60);
        wait.money_as_string = true;
        std::string order = iiko::op::deliveries_create_wait(
            client,
            "{\"organizationId\":\"" + org + "\",\"terminalGroupId\":\"" + env("TERMINAL_GROUP_ID") +
                "\",\"order\":{\"phone\":\"+79160000000\",\"items\":[{\"type\":\"Product\","
                "\"productId\":\"" + env("PRODUCT_ID") + "\",\"amount\":2,\"price\":\"99.9\"}]}}",
            wait);
        std::size_t at = order.find("\"sum\":\"");
        std::cout << "order created, sum "
                  << (at == std::string::npos ? "?" : order.substr(at + 7, order.find('"', at + 7) - at - 7))
                  << '\n';
    } catch (const iiko::CommandError &e) {
        std::cerr << "the command failed: " << e.description().value_or(e.what()) << " [correlationId "
                  << e.correlation_id().value_or("-") << "]\n";
        return 1;
    } catch (const iiko::Error &e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
}
