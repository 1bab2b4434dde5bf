// Tests of the C++ layer (include/iikocloud.hpp) against a running emulator.
// Environment: IIKO_BASE_URL, IIKO_VECTORS (tests/vectors). Built with
// -std=c++17 -Wall -Wextra -Werror by scripts/c-test.sh.
#include "iikocloud.hpp"
#include "test_hooks.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "portable.h"

namespace {

int failures = 0;

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            std::cerr << "  " << __FILE__ << ":" << __LINE__ << ": check failed: " #cond "\n"; \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

// Runs `body` and expects it to throw iiko::Error with `status`; returns the error.
std::optional<iiko::Error> expect_error(iiko_status status, const std::function<void()> &body) {
    try {
        body();
        std::cerr << "  no exception, wanted " << iiko::status_str(status) << "\n";
        failures++;
    } catch (const iiko::Error &e) {
        if (e.status() != status) {
            std::cerr << "  status " << e.status() << " (" << e.what() << "), wanted " << status
                      << "\n";
            failures++;
        }
        return e;
    }
    return std::nullopt;
}

std::string base_url() { return std::getenv("IIKO_BASE_URL"); }

std::string read_vector(const std::string &relative) {
    std::ifstream in(std::string(std::getenv("IIKO_VECTORS")) + "/" + relative, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

iiko::Client emulator_client() {
    iiko::ClientOptions options;
    options.v2("emulator-app", "emulator-secret", "emulator-api-key")
        .base_url(base_url())
        .retries(0, std::chrono::milliseconds(10));
    return iiko::Client(options);
}

const char *const ORG = "441e1320-3f58-4702-9f9e-aa34cdef9c04";

void test_version() {
    EXPECT(iiko::version() == IIKO_VERSION_STRING);
    EXPECT(iiko::status_str(IIKO_STATUS_OK).find("IIKO_STATUS_OK") == 0);
}

void test_configuration_errors() {
    auto e = expect_error(IIKO_STATUS_INVALID_CONFIG, [] {
        iiko::ClientOptions options;
        iiko::Client client(options); // no credentials
    });
    EXPECT(e && std::string(e->what()).find("credentials") != std::string::npos);
    EXPECT(e && e->http_status() == 0 && !e->correlation_id());
    expect_error(IIKO_STATUS_INVALID_CONFIG, [] {
        iiko::ClientOptions options;
        options.api_login("x").timeout(std::chrono::milliseconds(5));
        iiko::Client client(options);
    });
    // A negative duration, which C cannot carry, is refused with the library's message.
    auto negative = expect_error(IIKO_STATUS_INVALID_ARGUMENT, [] {
        iiko::ClientOptions options;
        options.timeout(std::chrono::milliseconds(-5));
    });
    EXPECT(negative && std::string(negative->what()).find("client.timeout must not be negative") !=
                           std::string::npos);
    // Moving a handle moves ownership; the moved-from object is empty and safe.
    iiko::ClientOptions a;
    iiko::ClientOptions b(std::move(a));
    b.api_login("x").base_url("http://127.0.0.1:1");
    iiko::Client c(b);
    EXPECT(c.get() != nullptr);
}

void test_calls() {
    iiko::Client client = emulator_client();
    iiko::Token token = client.access_token();
    EXPECT(!token.value.empty());
    EXPECT(token.expires_at > std::chrono::system_clock::now());

    iiko::Organizations orgs = client.organizations();
    EXPECT(orgs.items.size() == 2);
    bool found = false;
    for (const auto &o : orgs.items) {
        if (o.id == ORG) {
            found = o.name == std::optional<std::string>("Emulator Pizza (Central)");
        }
    }
    EXPECT(found);
    EXPECT(orgs.json.find("\"organizations\"") != std::string::npos);
    EXPECT(client.organizations("{\"includeDisabled\":true}").items.size() == 3);

    client.update_webhook_settings(std::string("{\"organizationId\":\"") + ORG +
                                   "\",\"webHooksUri\":\"https://pos.example/h\","
                                   "\"authToken\":\"cpp-token\"}");
    EXPECT(client.webhook_settings(ORG).find("https://pos.example/h") != std::string::npos);
    EXPECT(client.stop_lists(std::string("{\"organizationIds\":[\"") + ORG + "\"]}").find(
               "terminalGroupStopLists") != std::string::npos);
    EXPECT(client.call("/api/1/organizations", "{}", true).find(ORG) != std::string::npos);
}

void test_token_cache_dir() {
    char dir[512];
    EXPECT(test_temp_dir(dir, sizeof dir, "iiko-cpp-test") != nullptr);
    std::string tokens[2];
    for (auto &token : tokens) {
        iiko::ClientOptions options;
        options.v2("emulator-app", "emulator-secret", "emulator-api-key")
            .base_url(base_url())
            .token_cache_dir(dir);
        token = iiko::Client(options).access_token().value;
    }
    EXPECT(!tokens[0].empty() && tokens[0] == tokens[1]);
    EXPECT(test_remove_dir(dir) == 0);
}

void test_api_errors() {
    iiko::Client client = emulator_client();
    auto e = expect_error(IIKO_STATUS_API_BAD_REQUEST,
                          [&] { client.call("/api/1/stop_lists", "{}"); });
    EXPECT(e && e->http_status() == 400);
    EXPECT(e && e->correlation_id() && e->correlation_id()->size() == 36);
    EXPECT(e && e->description() && e->description()->find("organizationIds") != std::string::npos);
    EXPECT(e && e->api_code().has_value());
    EXPECT(e && e->path() == std::optional<std::string>("/api/1/stop_lists"));
    EXPECT(e && !e->body().empty());

    client.call("/_emulator/faults",
                "{\"kind\":\"rate_limited\",\"retryAfter\":3,\"path\":\"/api/1/organizations\"}");
    e = expect_error(IIKO_STATUS_API_RATE_LIMITED, [&] { client.organizations(); });
    EXPECT(e && e->retry_after_s() == 3 && e->correlation_id());

    expect_error(IIKO_STATUS_INVALID_ARGUMENT, [&] { client.organizations("{\"bogus\":1}"); });
    expect_error(IIKO_STATUS_INVALID_ARGUMENT, [&] { client.webhook_settings("not-a-uuid"); });

    iiko::ClientOptions bad;
    bad.v2("emulator-app", "wrong", "emulator-api-key").base_url(base_url());
    iiko::Client wrong(bad);
    e = expect_error(IIKO_STATUS_API_UNAUTHORIZED, [&] { wrong.access_token(); });
    EXPECT(e && e->http_status() == 401);
}

void test_threads() {
    iiko::Client client = emulator_client();
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&] {
            for (int i = 0; i < 3; i++) {
                try {
                    if (client.organizations().items.size() == 2) {
                        ok++;
                    }
                } catch (const iiko::Error &e) {
                    std::cerr << "  thread: " << e.what() << "\n";
                }
            }
        });
    }
    for (auto &t : threads) {
        t.join();
    }
    EXPECT(ok == 12);
}

void test_webhooks() {
    std::string body = read_vector("payloads/multi_all_types.json");
    iiko::Events events = iiko::webhook_parse(body);
    EXPECT(events.size() == 8 && !events.single_object());
    int count = 0;
    for (const iiko::Event &e : events) {
        EXPECT(e.type() != iiko::EventType::Unknown);
        EXPECT(!e.problem());
        EXPECT(!e.json().empty() && !e.dedup_key().empty());
        count++;
    }
    EXPECT(count == 8);
    iiko::Event first = events.at(0);
    EXPECT(first.field(IIKO_EVENT_FIELD_ORDER_SUM) == std::optional<std::string>("1780.0"));
    EXPECT(!events.at(4).field(IIKO_EVENT_FIELD_ORDER_PHONE).has_value());
    std::optional<iiko_local_time> created = first.local_time(IIKO_EVENT_FIELD_ORDER_WHEN_CREATED);
    EXPECT(created && created->year == 2025 && created->day == 16 && created->hour == 19 &&
           created->nanosecond == 512000000);
    EXPECT(!first.local_time(IIKO_EVENT_FIELD_ORDER_SUM).has_value());
    bool unknown_field = false;
    try {
        first.field(0);
    } catch (const iiko::Error &e) {
        unknown_field = e.status() == IIKO_STATUS_INVALID_ARGUMENT;
    }
    EXPECT(unknown_field);
    EXPECT(first.type() == iiko::EventType::DeliveryOrderUpdate);
    EXPECT(first.sum() == std::optional<std::string>("1780"));
    EXPECT(first.order_number() == std::optional<int64_t>(10452));
    EXPECT(first.time_unix_ms() == std::optional<int64_t>(1758038531877LL));
    EXPECT(!first.is_new_delivery_order());
    bool threw = false;
    try {
        events.at(8);
    } catch (const std::out_of_range &) {
        threw = true;
    }
    EXPECT(threw);

    iiko::webhook_verify("s3cret", std::string_view("Bearer s3cret"));
    auto e = expect_error(IIKO_STATUS_WEBHOOK_MISSING_AUTHORIZATION,
                          [] { iiko::webhook_verify("s3cret", std::nullopt); });
    EXPECT(e && iiko::webhook_http_status(e->status()) == 401);
    expect_error(IIKO_STATUS_WEBHOOK_MALFORMED_AUTHORIZATION,
                 [] { iiko::webhook_verify("s3cret", std::string_view("")); });
    e = expect_error(IIKO_STATUS_WEBHOOK_EMPTY_EXPECTED_TOKEN,
                     [] { iiko::webhook_verify("", std::string_view("x")); });
    EXPECT(e && iiko::webhook_http_status(e->status()) == 500);

    iiko::Events received =
        iiko::webhook_receive("s3cret", {{"AUTHORIZATION", "s3cret"}}, body);
    EXPECT(received.size() == 8);
    e = expect_error(IIKO_STATUS_WEBHOOK_BODY_NOT_ARRAY, [] {
        iiko::ParseOptions strict;
        strict.reject_single_object = true;
        iiko::webhook_parse("{}", strict);
    });
    EXPECT(e && iiko::webhook_http_status(e->status()) == 200);
    expect_error(IIKO_STATUS_WEBHOOK_BODY_NOT_UTF8, [] { iiko::webhook_parse("[\"\xff\"]"); });

    iiko::Deduplicator dedup(100, std::chrono::minutes(10));
    EXPECT(dedup.first_seen(events[0]));
    EXPECT(!dedup.first_seen(received[0]));
    dedup.forget(events[0]);
    EXPECT(dedup.first_seen(received[0]) && dedup.size() == 1);
    iiko::Deduplicator restarted(100, std::chrono::minutes(10));
    EXPECT(restarted.first_seen_key(events[1].dedup_key()));
    EXPECT(!restarted.first_seen(received[1]));
    expect_error(IIKO_STATUS_INVALID_ARGUMENT, [&] { dedup.first_seen(events[99]); });

    iiko::OrderingGuard ordering(100);
    iiko::Events older = iiko::webhook_parse(read_vector("payloads/delivery_order_update_in_progress.json"));
    EXPECT(ordering.observe(events[0]) == iiko::OrderingGuard::Decision::Apply);
    int64_t last = 0;
    EXPECT(ordering.observe(older[0], &last) == iiko::OrderingGuard::Decision::Stale);
    EXPECT(last == 1758038531877LL);
    EXPECT(ordering.observe(events[6]) == iiko::OrderingGuard::Decision::Untracked);
    ordering.forget(events[0]);
    EXPECT(ordering.size() == 0);
}

void test_panic_boundary() {
    iiko_error *err = nullptr;
    EXPECT(iiko_debug_force_panic(&err) == IIKO_STATUS_PANIC);
    iiko::Error e(IIKO_STATUS_PANIC, err); // takes and frees err
    EXPECT(std::string(e.what()).find("panic") != std::string::npos);
}

/* iiko::op: one generated function per operation, exceptions on failure. */
void test_operations() {
    iiko::Client client = emulator_client();
    const std::string org = "441e1320-3f58-4702-9f9e-aa34cdef9c04";
    std::string groups = iiko::op::terminal_groups(client, "{\"organizationIds\":[\"" + org + "\"]}");
    EXPECT(groups.find("terminalGroups") != std::string::npos);
    const std::string order =
        "{\"organizationId\":\"" + org +
        "\",\"terminalGroupId\":\"7b668cda-784b-4938-bd54-cd2bd147a44c\",\"order\":{\"phone\":"
        "\"+79160000007\",\"items\":[{\"type\":\"Product\",\"productId\":"
        "\"b1e604c4-586f-4a06-b3d0-ff67e6c542a2\",\"amount\":1,\"price\":0.1}]}}";
    iiko::CallOptions options;
    options.money_as_string = true;
    options.wait_timeout = std::chrono::milliseconds(20000);
    std::string created = iiko::op::deliveries_create_wait(client, order, options);
    EXPECT(created.find("\"creationStatus\":\"Success\"") != std::string::npos);
    EXPECT(created.find("\"price\":\"0.1\"") != std::string::npos);
    bool thrown = false;
    try {
        iiko::op::deliveries_by_id(client, "{\"organizationId\":\"" + org + "\",\"orderIds\":[\"x\"]}");
    } catch (const iiko::CommandError &) {
        EXPECT(!"not a command error");
    } catch (const iiko::Error &e) {
        thrown = e.status() == IIKO_STATUS_INVALID_ARGUMENT &&
                 std::string(e.what()).find("orderIds[0]") != std::string::npos;
    }
    EXPECT(thrown);
    thrown = false;
    try {
        iiko::op::deliveries_create_wait(client, std::string(order).replace(
                                                     order.find("b1e604c4"), 8, "00000000"),
                                         options);
    } catch (const iiko::CommandError &e) {
        thrown = e.failed() && e.correlation_id().has_value();
    }
    EXPECT(thrown);
}

} // namespace

int main(int argc, char **argv) {
    if (std::getenv("IIKO_BASE_URL") == nullptr || std::getenv("IIKO_VECTORS") == nullptr) {
        std::cerr << "set IIKO_BASE_URL and IIKO_VECTORS\n";
        return 2;
    }
    const std::vector<std::pair<const char *, void (*)()>> cases = {
        {"version", test_version},
        {"configuration_errors", test_configuration_errors},
        {"calls", test_calls},
        {"token_cache_dir", test_token_cache_dir},
        {"api_errors", test_api_errors},
        {"threads", test_threads},
        {"webhooks", test_webhooks},
        {"panic_boundary", test_panic_boundary},
        {"operations", test_operations},
    };
    int passed = 0, failed = 0;
    for (const auto &c : cases) {
        bool selected = argc < 2;
        for (int i = 1; i < argc; i++) {
            selected = selected || std::string(c.first).find(argv[i]) != std::string::npos;
        }
        if (!selected) {
            continue;
        }
        int before = failures;
        try {
            c.second();
        } catch (const std::exception &e) {
            std::cerr << "  unexpected exception: " << e.what() << "\n";
            failures++;
        }
        bool ok = failures == before;
        std::cout << (ok ? "ok   " : "FAIL ") << c.first << std::endl;
        (ok ? passed : failed)++;
    }
    std::cout << "test_cpp: " << passed << " passed, " << failed << " failed" << std::endl;
    return failed == 0 && passed > 0 ? 0 : 1;
}
