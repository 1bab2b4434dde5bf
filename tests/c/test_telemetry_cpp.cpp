// The C++ wrapper of the telemetry table (iiko::set_telemetry) against a
// running emulator: the callbacks receive the calls' spans, points and log
// records as C++ values, an exception a callback throws is dropped without
// disturbing the call, and a second set_telemetry throws ALREADY_SET. A
// program of its own: the table is set once per process.
// Environment: IIKO_BASE_URL. Built with -std=c++17 -Wall -Wextra -Werror.
#include "iikocloud.hpp"

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

namespace {

int failures = 0;

#define EXPECT(cond)                                                                      \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            std::cerr << "  " << __FILE__ << ":" << __LINE__ << ": check failed: " #cond "\n"; \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

std::mutex lock;
std::vector<iiko::Span> spans;
std::vector<iiko::MetricPoint> points;
std::vector<iiko::LogRecord> logs;
int thrown = 0;

const iiko::Attribute *find(const std::vector<iiko::Attribute> &attrs, const std::string &key) {
    for (const auto &a : attrs) {
        if (a.key == key) {
            return &a;
        }
    }
    return nullptr;
}

void test_telemetry() {
    iiko::Telemetry t;
    t.log_level = IIKO_LOG_DEBUG;
    t.on_span_end = [](const iiko::Span &span) {
        std::lock_guard<std::mutex> g(lock);
        spans.push_back(span);
        // Every token span throws: the call it belongs to must not notice.
        if (span.name == "access_token") {
            thrown++;
            throw std::runtime_error("a callback that throws");
        }
    };
    t.on_metric = [](const iiko::MetricPoint &p) {
        std::lock_guard<std::mutex> g(lock);
        points.push_back(p);
    };
    t.on_log = [](const iiko::LogRecord &r) {
        std::lock_guard<std::mutex> g(lock);
        logs.push_back(r);
    };
    iiko::set_telemetry(t);
    try {
        iiko::set_telemetry(iiko::Telemetry{});
        EXPECT(false);
    } catch (const iiko::Error &e) {
        EXPECT(e.status() == IIKO_STATUS_ALREADY_SET);
    }

    iiko::ClientOptions options;
    options.v2("emulator-app", "emulator-secret", "emulator-api-key")
        .base_url(std::getenv("IIKO_BASE_URL"));
    iiko::Client client(options);
    EXPECT(!client.organizations().items.empty());
    client.call("/_emulator/expire-tokens", "{}");
    EXPECT(!client.organizations().items.empty());

    std::lock_guard<std::mutex> g(lock);
    EXPECT(thrown == 2);
    std::vector<const iiko::Span *> calls;
    for (const auto &s : spans) {
        if (s.name == "organizations") {
            calls.push_back(&s);
        }
    }
    EXPECT(calls.size() == 2);
    if (calls.size() == 2) {
        const iiko::Span &again = *calls[1];
        EXPECT(again.kind == "client" && !again.error);
        EXPECT(again.span_id != 0 && again.trace_id == again.span_id);
        const iiko::Attribute *resends = find(again.attributes, "http.request.resend_count");
        EXPECT(resends != nullptr && std::get<int64_t>(resends->value) == 1);
        const iiko::Attribute *op = find(again.attributes, "iiko.operation");
        EXPECT(op != nullptr && std::get<std::string>(op->value) == "organizations");
        EXPECT(again.events.size() == 1 && again.events[0].name == "resend");
        for (const auto &s : spans) {
            if (s.name == "access_token") {
                EXPECT(s.parent_span_id == calls[0]->span_id || s.parent_span_id == again.span_id);
            }
        }
    }
    bool duration = false;
    for (const auto &p : points) {
        if (p.name == "http.client.request.duration") {
            duration = true;
            EXPECT(p.kind == "histogram" && p.unit == "s" && p.value >= 0);
            EXPECT(find(p.attributes, "http.request.method") != nullptr);
        }
    }
    EXPECT(duration);
    bool resend_logged = false;
    for (const auto &r : logs) {
        resend_logged |= r.message == "resend" && r.level == IIKO_LOG_DEBUG;
    }
    EXPECT(resend_logged);
}

} // namespace

int main() {
    if (std::getenv("IIKO_BASE_URL") == nullptr) {
        std::cerr << "set IIKO_BASE_URL\n";
        return 2;
    }
    try {
        test_telemetry();
    } catch (const std::exception &e) {
        std::cerr << "  unexpected exception: " << e.what() << "\n";
        failures++;
    }
    std::cout << (failures == 0 ? "ok   telemetry\n" : "FAIL telemetry\n");
    std::cout << "telemetry_cpp: " << (failures == 0 ? 1 : 0) << " passed, "
              << (failures == 0 ? 0 : 1) << " failed\n";
    return failures == 0 ? 0 : 1;
}
