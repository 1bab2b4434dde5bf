// Verifies and prints one webhook request body read from a file or stdin, with
// the C++ layer (iikocloud.hpp). Same arguments as examples/c/example_webhook.c:
//   ./example_webhook_cpp --token EXPECTED [--authorization VALUE] [FILE | -]
// Build: c++ -std=c++17 example_webhook.cpp $(pkg-config --cflags --libs iikocloud)
#include <iikocloud.hpp>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

int main(int argc, char **argv) {
    std::string token, path = "-";
    std::optional<std::string> authorization;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--token" && i + 1 < argc) {
            token = argv[++i];
        } else if (arg == "--authorization" && i + 1 < argc) {
            authorization = argv[++i];
        } else {
            path = arg;
        }
    }
    if (token.empty()) {
        std::cerr << "usage: " << argv[0] << " --token EXPECTED [--authorization VALUE] [FILE | -]\n";
        return 2;
    }
    std::string body;
    if (path == "-") {
        body.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            std::cerr << "cannot read " << path << "\n";
            return 2;
        }
        body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }

    std::vector<std::pair<std::string, std::string>> headers;
    if (authorization) {
        headers.emplace_back("Authorization", *authorization);
    }
    try {
        iiko::Events events = iiko::webhook_receive(token, headers, body);
        std::cout << "answer HTTP " << iiko::webhook_http_status(IIKO_STATUS_OK) << "\n"
                  << events.size() << " events\n";
        iiko::Deduplicator dedup(10000, std::chrono::hours(24));
        for (const iiko::Event &e : events) {
            std::cout << "#" << e.index() << " " << e.type_name().value_or("-") << " at "
                      << e.time().value_or("-") << ", organization "
                      << e.organization_id().value_or("-") << "\n";
            if (e.problem()) {
                std::cout << "   unreadable: " << *e.problem() << "\n";
                continue;
            }
            if (!dedup.first_seen(e)) {
                std::cout << "   repeated delivery, skipped\n";
                continue;
            }
            if (e.order_id()) {
                std::cout << "   order " << *e.order_id() << ", status " << e.status().value_or("-")
                          << ", sum " << e.sum().value_or("-")
                          << (e.is_new_delivery_order() ? ", NEW ORDER" : "") << "\n";
            }
            if (e.error_code()) {
                std::cout << "   error " << *e.error_code() << ": "
                          << e.error_message().value_or("-") << "\n";
            }
        }
        return 0;
    } catch (const iiko::Error &e) {
        std::cout << "answer HTTP " << iiko::webhook_http_status(e.status()) << "\nrejected: "
                  << e.what() << "\n";
        return 1;
    }
}
