/* iikocloud.hpp: header-only C++17 layer over the C API of iikocloud.h.
 *
 * - Classes own the C handles (RAII, move-only) and free them once.
 * - Failures throw iiko::Error (a std::runtime_error) carrying the status,
 *   the HTTP status, errorDescription, the error code and the correlationId.
 * - Results are std::string / std::vector / std::optional; nothing returned
 *   points into a handle, so results outlive the objects they came from.
 * - Thread safety is the C API's: a Client, Deduplicator or OrderingGuard may be
 *   used by many threads at once; Events may be read by many threads at once;
 *   ClientOptions is for one thread.
 *
 * Link with -liikocloud (pkg-config --libs iikocloud). */
#ifndef IIKOCLOUD_HPP
#define IIKOCLOUD_HPP

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

extern "C" {
#include "iikocloud.h"
}

namespace iiko {

/** A failed call: what iiko_error carries, copied. */
class Error : public std::runtime_error {
  public:
    /** Takes the detail out of `err` (which may be NULL) and frees it. */
    Error(iiko_status status, iiko_error *err)
        : std::runtime_error(message_of(status, err)), status_(status) {
        if (err != nullptr) {
            http_status_ = iiko_error_http_status(err);
            description_ = opt(iiko_error_description(err));
            api_code_ = opt(iiko_error_api_code(err));
            correlation_id_ = opt(iiko_error_correlation_id(err));
            path_ = opt(iiko_error_path(err));
            retry_after_s_ = iiko_error_retry_after_s(err);
            size_t len = 0;
            const uint8_t *body = iiko_error_body(err, &len);
            if (body != nullptr) {
                body_.assign(reinterpret_cast<const char *>(body), len);
            }
            iiko_error_free(err);
        }
    }

    /** The IIKO_STATUS_* code. */
    iiko_status status() const noexcept { return status_; }
    /** The HTTP status of the answer that failed; 0 when there was none. */
    int http_status() const noexcept { return http_status_; }
    /** errorDescription of the service's answer. */
    const std::optional<std::string> &description() const noexcept { return description_; }
    /** `error`, the service's short error code. */
    const std::optional<std::string> &api_code() const noexcept { return api_code_; }
    /** correlationId, to quote to iiko support. */
    const std::optional<std::string> &correlation_id() const noexcept { return correlation_id_; }
    /** The endpoint path of a failed call. */
    const std::optional<std::string> &path() const noexcept { return path_; }
    /** Retry-After of a 429 in seconds, or -1. */
    int64_t retry_after_s() const noexcept { return retry_after_s_; }
    /** The raw body of the failed answer (may be empty). */
    const std::string &body() const noexcept { return body_; }

  private:
    static std::optional<std::string> opt(const char *s) {
        return s == nullptr ? std::nullopt : std::optional<std::string>(s);
    }
    static std::string message_of(iiko_status status, const iiko_error *err) {
        const char *m = err != nullptr ? iiko_error_message(err) : nullptr;
        return m != nullptr ? std::string(m) : std::string(iiko_status_str(status));
    }

    iiko_status status_;
    int http_status_ = 0;
    std::optional<std::string> description_;
    std::optional<std::string> api_code_;
    std::optional<std::string> correlation_id_;
    std::optional<std::string> path_;
    int64_t retry_after_s_ = -1;
    std::string body_;
};

/** A command followed to its end did not succeed: failed (description() is the
 *  service's reason), timed out (it may yet finish) or expired. Status group IIKO_STATUS_GROUP_COMMAND (75xx). */
class CommandError : public Error {
  public:
    using Error::Error;
    bool failed() const noexcept { return status() == IIKO_STATUS_COMMAND_FAILED; }
    bool timed_out() const noexcept { return status() == IIKO_STATUS_COMMAND_TIMED_OUT; }
    bool expired() const noexcept { return status() == IIKO_STATUS_COMMAND_EXPIRED; }
};

namespace detail {

/** Throws iiko::Error (iiko::CommandError for a command's status) unless `status` is IIKO_STATUS_OK. */
/* Takes the address of the error variable, not its value: the call that
 * fills it is an argument too, and argument evaluation order is unspecified. */
inline void check(iiko_status status, iiko_error **err) {
    iiko_error *e = *err;
    *err = nullptr;
    if (iiko_status_group(status) == IIKO_STATUS_GROUP_COMMAND) {
        throw CommandError(status, e);
    }
    if (status != IIKO_STATUS_OK) {
        throw Error(status, e);
    }
    iiko_error_free(e);
}

/** Copies a string the library returned and frees it. */
/* A duration for the limit `name`, as the C call takes it: milliseconds, which
 * the call reads by the library's rule. A negative one, which C cannot carry,
 * is refused here with the library's message (iiko::Error). */
inline uint64_t ms(const char *name, std::chrono::milliseconds t) {
    if (t.count() < 0) {
        uint64_t ignored = 0;
        iiko_error *err = nullptr;
        check(iiko_limit_read(name, static_cast<int64_t>(t.count()), &ignored, &err), &err);
    }
    return static_cast<uint64_t>(t.count());
}

inline std::string take(char *s) {
    std::string out = s != nullptr ? std::string(s) : std::string();
    iiko_string_free(s);
    return out;
}

inline std::optional<std::string> opt(const char *s) {
    return s == nullptr ? std::nullopt : std::optional<std::string>(s);
}

/** The C string of an optional argument (NULL when empty). */
inline const char *c_or_null(const std::optional<std::string> &s) {
    return s ? s->c_str() : nullptr;
}

struct Free {
    void operator()(iiko_client_options *p) const noexcept { iiko_client_options_free(p); }
    void operator()(iiko_client *p) const noexcept { iiko_client_free(p); }
    void operator()(iiko_organizations *p) const noexcept { iiko_organizations_free(p); }
    void operator()(iiko_events *p) const noexcept { iiko_events_free(p); }
    void operator()(iiko_deduplicator *p) const noexcept { iiko_deduplicator_free(p); }
    void operator()(iiko_ordering_guard *p) const noexcept { iiko_ordering_guard_free(p); }
};

template <typename T> using Handle = std::unique_ptr<T, Free>;

} // namespace detail

/** The library's version at run time (e.g. "0.1.0"). */
inline std::string version() { return iiko_version(); }

/** The name and meaning of a status code. */
inline std::string status_str(iiko_status status) { return iiko_status_str(status); }

/** How Client::call_operation sends one call. */
struct CallOptions {
    /** This call's Timeout header; 0 keeps the client's (the library's "call.timeout"). */
    std::chrono::milliseconds timeout{0};
    /** How long call_operation_wait follows the command; 0 is IIKO_DEFAULT_WAIT_TIMEOUT_MS
     *  (the library's "wait.timeout"). */
    std::chrono::milliseconds wait_timeout{0};
    /** Amounts in the answer as JSON strings instead of numbers (both exact). */
    bool money_as_string = false;
    /** Send request keys that are no field of the library's snapshot as given (a field
     *  newer than the library); without it such a key is refused before sending. */
    bool allow_unknown_fields = false;
};

/** Settings for a Client; the setters chain: ClientOptions().v2(...).base_url(...). */
class ClientOptions {
  public:
    ClientOptions() {
        iiko_client_options *p = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_new(&p, &err), &err);
        handle_.reset(p);
    }

    ClientOptions &v2(const std::string &app_id, const std::string &client_secret,
                      const std::string &api_key) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_v2(handle_.get(), app_id.c_str(),
                                                  client_secret.c_str(), api_key.c_str(), &err),
                      &err);
        return *this;
    }
    ClientOptions &api_login(const std::string &login) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_api_login(handle_.get(), login.c_str(), &err), &err);
        return *this;
    }
    ClientOptions &base_url(const std::string &url) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_base_url(handle_.get(), url.c_str(), &err), &err);
        return *this;
    }
    /** The Timeout header (how long the service waits for the terminal). */
    ClientOptions &timeout(std::chrono::milliseconds t) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_timeout_ms(
                          handle_.get(), detail::ms("client.timeout", t), &err),
                      &err);
        return *this;
    }
    /** How long the client waits for a whole exchange (longer than timeout()). */
    ClientOptions &client_timeout(std::chrono::milliseconds t) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_client_timeout_ms(
                          handle_.get(), detail::ms("client.client_timeout", t), &err),
                      &err);
        return *this;
    }
    ClientOptions &retries(uint32_t count, std::chrono::milliseconds base_delay) {
        iiko_error *err = nullptr;
        detail::check(
            iiko_client_options_set_retries(
                handle_.get(), count, detail::ms("client.retry_base_delay", base_delay), &err),
            &err);
        return *this;
    }
    ClientOptions &token_cache(std::chrono::milliseconds refresh_margin,
                               std::chrono::milliseconds fallback_lifetime) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_token_cache(
                          handle_.get(), detail::ms("client.refresh_margin", refresh_margin),
                          detail::ms("client.fallback_token_lifetime", fallback_lifetime),
                          &err),
                      &err);
        return *this;
    }
    /** Shares the token with other processes through a file in `dir` (keep it private). */
    ClientOptions &token_cache_dir(const std::string &dir) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_token_cache_dir(handle_.get(), dir.c_str(), &err),
                      &err);
        return *this;
    }
    ClientOptions &max_response_bytes(uint64_t bytes) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_max_response_bytes(handle_.get(), bytes, &err), &err);
        return *this;
    }

    /// Also trust the roots in this PEM file (on top of the system store).
    ClientOptions &ca_file(const std::string &path) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_ca_file(handle_.get(), path.c_str(), &err), &err);
        return *this;
    }

    /// IIKO_TRUST_SYSTEM (default) or IIKO_TRUST_BUNDLED.
    ClientOptions &trust_roots(int32_t which) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_trust_roots(handle_.get(), which, &err), &err);
        return *this;
    }

    /// http://[user:password@]host:port; the password is never shown.
    ClientOptions &proxy(const std::string &url) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_proxy(handle_.get(), url.c_str(), &err), &err);
        return *this;
    }

    /// Hosts reached without the proxy, comma-separated.
    ClientOptions &no_proxy(const std::string &hosts) {
        iiko_error *err = nullptr;
        detail::check(iiko_client_options_set_no_proxy(handle_.get(), hosts.c_str(), &err), &err);
        return *this;
    }

    const iiko_client_options *get() const noexcept { return handle_.get(); }

  private:
    detail::Handle<iiko_client_options> handle_;
};

/** An access token and its expiry. */
struct Token {
    std::string value;
    std::chrono::system_clock::time_point expires_at;
};

struct Organization {
    std::string id;
    std::optional<std::string> name;
};

/** The answer of Client::organizations: typed list plus the whole answer as JSON. */
struct Organizations {
    std::vector<Organization> items;
    std::string json;
};

/** A client of the iikoCloud API. Thread-safe: share one between threads. */
class Client {
  public:
    explicit Client(const ClientOptions &options) {
        iiko_client *p = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_new(options.get(), &p, &err), &err);
        handle_.reset(p);
    }

    Token access_token() const {
        char *token = nullptr;
        int64_t expires_ms = 0;
        iiko_error *err = nullptr;
        detail::check(iiko_client_access_token(handle_.get(), &token, &expires_ms, &err), &err);
        return Token{detail::take(token), std::chrono::system_clock::time_point(
                                              std::chrono::milliseconds(expires_ms))};
    }

    /** Organizations; `request_json` empty means every organization. */
    Organizations organizations(const std::string &request_json = std::string()) const {
        iiko_organizations *orgs = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_organizations(handle_.get(),
                                                request_json.empty() ? nullptr
                                                                     : request_json.c_str(),
                                                &orgs, &err),
                      &err);
        detail::Handle<iiko_organizations> owned(orgs);
        Organizations out;
        size_t n = iiko_organizations_count(orgs);
        out.items.reserve(n);
        for (size_t i = 0; i < n; i++) {
            out.items.push_back(Organization{iiko_organizations_id(orgs, i),
                                             detail::opt(iiko_organizations_name(orgs, i))});
        }
        out.json = iiko_organizations_json(orgs);
        return out;
    }

    /** Webhook settings of an organization, as JSON. */
    std::string webhook_settings(const std::string &organization_id) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(
            iiko_client_webhook_settings(handle_.get(), organization_id.c_str(), &json, &err), &err);
        return detail::take(json);
    }

    /** Sets the webhook; returns the answer JSON ({"correlationId":...}). */
    std::string update_webhook_settings(const std::string &request_json) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_update_webhook_settings(handle_.get(), request_json.c_str(),
                                                          &json, &err),
                      &err);
        return detail::take(json);
    }

    std::string stop_lists(const std::string &request_json) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_stop_lists(handle_.get(), request_json.c_str(), &json, &err),
                      &err);
        return detail::take(json);
    }

    /** Any endpoint. Retried only when `idempotent` (never for calls that create things). */
    std::string call(const std::string &path, const std::string &body_json = "{}",
                     bool idempotent = false,
                     std::chrono::milliseconds timeout = std::chrono::milliseconds(0)) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_call(handle_.get(), path.c_str(), body_json.c_str(),
                                       detail::ms("call.timeout", timeout),
                                       idempotent ? IIKO_CALL_IDEMPOTENT : 0u, &json, &err),
                      &err);
        return detail::take(json);
    }

    /** Calls an operation (an IIKO_OP_* constant, or see iiko::op) with a JSON request
     *  checked before sending; returns the answer JSON. Throws iiko::Error. */
    std::string call_operation(iiko_operation op, const std::string &request_json = "{}",
                               const CallOptions &options = CallOptions()) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_call_operation(handle_.get(), op, request_json.c_str(),
                                                 detail::ms("call.timeout", options.timeout),
                                                 flags(options), &json, &err),
                      &err);
        return detail::take(json);
    }

    /** Calls a command and follows it to its end; throws iiko::CommandError when it
     *  fails, times out or expires. */
    std::string call_operation_wait(iiko_operation op, const std::string &request_json,
                                    const CallOptions &options = CallOptions()) const {
        char *json = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_client_call_operation_wait(
                          handle_.get(), op, request_json.c_str(),
                          detail::ms("call.timeout", options.timeout),
                          detail::ms("wait.timeout", options.wait_timeout), flags(options),
                          &json, &err),
                      &err);
        return detail::take(json);
    }

    const iiko_client *get() const noexcept { return handle_.get(); }

  private:
    static uint32_t flags(const CallOptions &options) {
        return (options.money_as_string ? IIKO_CALL_MONEY_AS_STRING : 0u) |
               (options.allow_unknown_fields ? IIKO_CALL_ALLOW_UNKNOWN_FIELDS : 0u);
    }
    detail::Handle<iiko_client> handle_;
};

} // namespace iiko

/* The generated part: iiko::op (over Client, above) and iiko::EventType. */
#include "iikocloud_ops.hpp"

namespace iiko {

class Events;

/** One event of an Events collection (a view: keep the Events alive). */
class Event {
  public:
    Event(const iiko_events *events, size_t index) : events_(events), index_(index) {}

    /** The type; a code this header does not know reads as Unknown. */
    EventType type() const {
        int32_t t = iiko_events_type(events_, index_);
        return t >= IIKO_EVENT_UNKNOWN && t <= IIKO_EVENT_LAST
                   ? static_cast<EventType>(t)
                   : EventType::Unknown;
    }
    std::optional<std::string> type_name() const {
        return detail::opt(iiko_events_type_name(events_, index_));
    }
    std::optional<std::string> time() const { return detail::opt(iiko_events_time(events_, index_)); }
    std::optional<int64_t> time_unix_ms() const {
        int64_t v = 0;
        return iiko_events_time_unix_ms(events_, index_, &v) ? std::optional<int64_t>(v)
                                                              : std::nullopt;
    }
    std::optional<std::string> organization_id() const {
        return detail::opt(iiko_events_organization_id(events_, index_));
    }
    std::optional<std::string> correlation_id() const {
        return detail::opt(iiko_events_correlation_id(events_, index_));
    }
    std::string json() const {
        const char *j = iiko_events_json(events_, index_);
        return j != nullptr ? std::string(j) : std::string();
    }
    /** A documented field (an IIKO_EVENT_FIELD_* constant) as text: numbers exactly as the
     *  body wrote them; nullopt when the event lacks it. Throws iiko::Error for an unknown
     *  field. */
    std::optional<std::string> field(iiko_event_field f) const {
        char *v = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_events_field(events_, index_, f, &v, &err), &err);
        if (v == nullptr) {
            return std::nullopt;
        }
        return detail::take(v);
    }
    /** A local-time field (e.g. IIKO_EVENT_FIELD_ORDER_WHEN_CREATED) read by the SDK's one rule
     *  (iiko_local_time_parse); nullopt when the event lacks it or its text is no time. */
    std::optional<iiko_local_time> local_time(iiko_event_field f) const {
        std::optional<std::string> text = field(f);
        iiko_local_time t{};
        if (!text || iiko_local_time_parse(text->c_str(), &t) != 1) {
            return std::nullopt;
        }
        return t;
    }
    /** Why the event could not be read; empty for a readable event. */
    std::optional<std::string> problem() const {
        return detail::opt(iiko_events_problem(events_, index_));
    }
    std::optional<std::string> entity_id() const {
        return detail::opt(iiko_events_entity_id(events_, index_));
    }
    std::optional<std::string> order_id() const {
        return detail::opt(iiko_events_order_id(events_, index_));
    }
    std::optional<int64_t> timestamp() const {
        int64_t v = 0;
        return iiko_events_timestamp(events_, index_, &v) ? std::optional<int64_t>(v)
                                                          : std::nullopt;
    }
    std::optional<std::string> creation_status() const {
        return detail::opt(iiko_events_creation_status(events_, index_));
    }
    std::optional<std::string> status() const {
        return detail::opt(iiko_events_status(events_, index_));
    }
    std::optional<int64_t> order_number() const {
        int64_t v = 0;
        return iiko_events_order_number(events_, index_, &v) ? std::optional<int64_t>(v)
                                                             : std::nullopt;
    }
    /** The exact order total as a decimal string ("1780", "12.5"). */
    std::optional<std::string> sum() const { return detail::opt(iiko_events_sum(events_, index_)); }
    std::optional<std::string> phone() const {
        return detail::opt(iiko_events_phone(events_, index_));
    }
    std::optional<std::string> error_code() const {
        return detail::opt(iiko_events_error_code(events_, index_));
    }
    std::optional<std::string> error_message() const {
        return detail::opt(iiko_events_error_message(events_, index_));
    }
    bool is_new_delivery_order() const {
        return iiko_events_is_new_delivery_order(events_, index_) != 0;
    }
    std::string dedup_key() const {
        const char *k = iiko_events_dedup_key(events_, index_);
        return k != nullptr ? std::string(k) : std::string();
    }

    const iiko_events *events() const noexcept { return events_; }
    size_t index() const noexcept { return index_; }

  private:
    const iiko_events *events_;
    size_t index_;
};

/** Parse limits of a webhook body, read as the library reads "webhook.max_body_bytes" and
 *  "webhook.max_depth" (0: the default). */
struct ParseOptions {
    size_t max_body_bytes = 0;
    size_t max_depth = 0;
    bool reject_single_object = false;
    uint32_t flags() const { return reject_single_object ? IIKO_WEBHOOK_REJECT_SINGLE_OBJECT : 0u; }
};

/** The events of one webhook body. Readable from many threads at once. */
class Events {
  public:
    explicit Events(iiko_events *events) : handle_(events) {}

    size_t size() const noexcept { return iiko_events_count(handle_.get()); }
    bool empty() const noexcept { return size() == 0; }
    bool single_object() const noexcept { return iiko_events_single_object(handle_.get()) != 0; }
    Event operator[](size_t index) const { return Event(handle_.get(), index); }
    Event at(size_t index) const {
        if (index >= size()) {
            throw std::out_of_range("iiko::Events::at");
        }
        return (*this)[index];
    }

    class iterator {
      public:
        iterator(const iiko_events *events, size_t index) : events_(events), index_(index) {}
        Event operator*() const { return Event(events_, index_); }
        iterator &operator++() {
            index_++;
            return *this;
        }
        bool operator!=(const iterator &other) const { return index_ != other.index_; }

      private:
        const iiko_events *events_;
        size_t index_;
    };
    iterator begin() const { return iterator(handle_.get(), 0); }
    iterator end() const { return iterator(handle_.get(), size()); }

    const iiko_events *get() const noexcept { return handle_.get(); }

  private:
    detail::Handle<iiko_events> handle_;
};

/** Checks an Authorization header value (std::nullopt: no header); throws
 * iiko::Error with an IIKO_STATUS_WEBHOOK_* status when it does not match. */
inline void webhook_verify(const std::string &expected_token,
                           const std::optional<std::string_view> &authorization) {
    iiko_error *err = nullptr;
    const char *value = authorization ? authorization->data() : nullptr;
    if (authorization && value == nullptr) {
        value = ""; // a present but empty header
    }
    detail::check(iiko_webhook_verify(expected_token.c_str(), value,
                                      authorization ? authorization->size() : 0, &err),
                  &err);
}

/** Parses a webhook body (no verification). */
inline Events webhook_parse(std::string_view body, const ParseOptions &options = ParseOptions()) {
    iiko_events *events = nullptr;
    iiko_error *err = nullptr;
    detail::check(iiko_webhook_parse(body.data(), body.size(),
                                     options.max_body_bytes, options.max_depth, options.flags(),
                                     &events, &err),
                  &err);
    return Events(events);
}

/** Verifies the request's headers, then parses its body. On failure, answer
 * webhook_http_status(e.status()) for the iiko::Error `e` thrown. */
inline Events webhook_receive(const std::string &expected_token,
                              const std::vector<std::pair<std::string, std::string>> &headers,
                              std::string_view body,
                              const ParseOptions &options = ParseOptions()) {
    std::vector<const char *> names;
    std::vector<const char *> values;
    for (const auto &h : headers) {
        names.push_back(h.first.c_str());
        values.push_back(h.second.c_str());
    }
    iiko_events *events = nullptr;
    iiko_error *err = nullptr;
    detail::check(iiko_webhook_receive(expected_token.c_str(), names.data(), values.data(),
                                       headers.size(),
                                       body.data(), body.size(),
                                       options.max_body_bytes, options.max_depth, options.flags(),
                                       &events, &err),
                  &err);
    return Events(events);
}

/** The HTTP status a webhook endpoint answers for a status, by the library's receive rule
 *  (see iiko_webhook_http_status). */
inline int webhook_http_status(iiko_status status) { return iiko_webhook_http_status(status); }

/** Drops repeated deliveries. Thread-safe. */
class Deduplicator {
  public:
    Deduplicator(size_t capacity, std::chrono::milliseconds max_age) {
        iiko_deduplicator *p = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_deduplicator_new(capacity, detail::ms("dedup.max_age", max_age),
                                            &p, &err),
                      &err);
        handle_.reset(p);
    }
    /** True the first time an event is seen (and remembers it). */
    bool first_seen(const Event &event) const {
        int32_t seen = 0;
        iiko_error *err = nullptr;
        detail::check(iiko_deduplicator_first_seen(handle_.get(), event.events(), event.index(),
                                                   &seen, &err),
                      &err);
        return seen != 0;
    }
    /** first_seen for a key text stored earlier (Event::dedup_key). */
    bool first_seen_key(const std::string &key) const {
        int32_t seen = 0;
        iiko_error *err = nullptr;
        detail::check(iiko_deduplicator_first_seen_key(handle_.get(), key.c_str(), &seen, &err),
                      &err);
        return seen != 0;
    }
    void forget(const Event &event) const {
        iiko_error *err = nullptr;
        detail::check(
            iiko_deduplicator_forget(handle_.get(), event.events(), event.index(), &err), &err);
    }
    size_t size() const noexcept { return iiko_deduplicator_len(handle_.get()); }

  private:
    detail::Handle<iiko_deduplicator> handle_;
};

/** Skips order and reserve events older than one already applied. Thread-safe. */
class OrderingGuard {
  public:
    enum class Decision { Apply, Stale, Untracked };

    explicit OrderingGuard(size_t capacity) {
        iiko_ordering_guard *p = nullptr;
        iiko_error *err = nullptr;
        detail::check(iiko_ordering_guard_new(capacity, &p, &err), &err);
        handle_.reset(p);
    }
    Decision observe(const Event &event, int64_t *last_applied = nullptr) const {
        int32_t decision = 0;
        iiko_error *err = nullptr;
        detail::check(iiko_ordering_guard_observe(handle_.get(), event.events(), event.index(),
                                                  &decision, last_applied, &err),
                      &err);
        switch (decision) {
        case IIKO_ORDERING_APPLY:
            return Decision::Apply;
        case IIKO_ORDERING_STALE:
            return Decision::Stale;
        default:
            return Decision::Untracked;
        }
    }
    void forget(const Event &event) const {
        iiko_error *err = nullptr;
        detail::check(
            iiko_ordering_guard_forget(handle_.get(), event.events(), event.index(), &err), &err);
    }
    size_t size() const noexcept { return iiko_ordering_guard_len(handle_.get()); }

  private:
    detail::Handle<iiko_ordering_guard> handle_;
};

// ---- telemetry (iiko_telemetry_set) ----

/** An attribute of a span, metric point or log record, copied. */
struct Attribute {
    std::string key;
    std::variant<std::string, int64_t, double, bool> value;
};

/** Something that happened during a span (a resend, a webhook's event). */
struct SpanEvent {
    std::string name;
    uint64_t time_unix_ns = 0;
    std::vector<Attribute> attributes;
};

/** A span of the SDK that ended (see iiko_span). */
struct Span {
    std::string name;
    std::string kind; // "client", "server", "internal"
    uint64_t start_unix_ns = 0;
    uint64_t end_unix_ns = 0;
    bool error = false;
    uint64_t trace_id = 0;
    uint64_t span_id = 0;
    uint64_t parent_span_id = 0; // 0: a child of your current span
    std::vector<Attribute> attributes;
    std::vector<SpanEvent> events;
};

/** One metric point (see iiko_metric_point). */
struct MetricPoint {
    std::string name;
    std::string unit;
    std::string kind; // "counter", "histogram", "gauge"
    size_t metric_index = 0;
    double value = 0;
    std::vector<Attribute> attributes;
};

/** One log record (see iiko_log_record); level is IIKO_LOG_ERROR ... IIKO_LOG_TRACE. */
struct LogRecord {
    int level = 0;
    std::string target;
    std::string message;
    uint64_t time_unix_ns = 0;
    uint64_t span_id = 0;
    std::vector<Attribute> attributes;
};

/** The callbacks of set_telemetry; an empty one costs nothing. They run on
 * the thread that called the library, possibly on several threads at once
 * (iiko_telemetry's rules). An exception a callback throws is caught and
 * dropped: it must not cross the C library. */
struct Telemetry {
    std::function<void(const Span &)> on_span_end;
    std::function<void(const MetricPoint &)> on_metric;
    std::function<void(const LogRecord &)> on_log;
    int log_level = 0; // 0: IIKO_LOG_INFO
};

namespace detail {
inline std::vector<Attribute> attributes(const iiko_attribute *a, size_t n) {
    std::vector<Attribute> out;
    out.reserve(n);
    for (size_t i = 0; i < n; i++) {
        Attribute attr{a[i].key, std::string()};
        switch (a[i].value_type) {
        case IIKO_ATTR_INT:
            attr.value = a[i].int_value;
            break;
        case IIKO_ATTR_DOUBLE:
            attr.value = a[i].double_value;
            break;
        case IIKO_ATTR_BOOL:
            attr.value = a[i].bool_value != 0;
            break;
        default:
            attr.value = std::string(a[i].string_value != nullptr ? a[i].string_value : "");
        }
        out.push_back(std::move(attr));
    }
    return out;
}

inline void telemetry_span(void *user_data, const iiko_span *s) {
    try {
        Span span;
        span.name = s->name;
        span.kind = s->kind;
        span.start_unix_ns = s->start_unix_ns;
        span.end_unix_ns = s->end_unix_ns;
        span.error = s->status == IIKO_SPAN_STATUS_ERROR;
        span.trace_id = s->trace_id;
        span.span_id = s->span_id;
        span.parent_span_id = s->parent_span_id;
        span.attributes = attributes(s->attributes, s->attribute_count);
        for (size_t i = 0; i < s->event_count; i++) {
            const iiko_span_event &e = s->events[i];
            span.events.push_back(
                SpanEvent{e.name, e.time_unix_ns, attributes(e.attributes, e.attribute_count)});
        }
        static_cast<Telemetry *>(user_data)->on_span_end(span);
    } catch (...) {
        // Dropped: an exception must not unwind through the C library.
    }
}

inline void telemetry_metric(void *user_data, const iiko_metric_point *p) {
    try {
        MetricPoint point{p->name, p->unit, p->kind, p->metric_index, p->value,
                          attributes(p->attributes, p->attribute_count)};
        static_cast<Telemetry *>(user_data)->on_metric(point);
    } catch (...) {
    }
}

inline void telemetry_log(void *user_data, const iiko_log_record *r) {
    try {
        LogRecord record{r->level,          r->target,  r->message,
                         r->time_unix_ns,   r->span_id, attributes(r->attributes, r->attribute_count)};
        static_cast<Telemetry *>(user_data)->on_log(record);
    } catch (...) {
    }
}
} // namespace detail

/** Sets the process's telemetry callbacks (iiko_telemetry_set): once per
 * process; a second call throws Error with IIKO_STATUS_ALREADY_SET and the
 * first callbacks stay. The callbacks are kept for the rest of the process. */
inline void set_telemetry(Telemetry callbacks) {
    auto kept = std::make_unique<Telemetry>(std::move(callbacks));
    iiko_telemetry table{};
    table.size = sizeof table;
    table.version = IIKO_TELEMETRY_VERSION;
    table.log_level = kept->log_level;
    table.user_data = kept.get();
    table.on_span_end = kept->on_span_end ? detail::telemetry_span : nullptr;
    table.on_metric = kept->on_metric ? detail::telemetry_metric : nullptr;
    table.on_log = kept->on_log ? detail::telemetry_log : nullptr;
    iiko_error *err = nullptr;
    detail::check(iiko_telemetry_set(&table, &err), &err);
    // The library holds it from now on, for the life of the process.
    (void)kept.release();
}

} // namespace iiko

#endif
