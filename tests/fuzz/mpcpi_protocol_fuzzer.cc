// Fuzzes mpcpi's protocol handling (mpcpi/handlers.cc, mpcpi/internal/
// wire.hpp): a one-task job (lapi's singleton) whose engine receives forged
// protocol messages of every type — any length, any envelope — mixed with
// real sends, receives, probes, cancels and tests, through lapi's real
// Amsend path into the engine's registered header handlers.
//
// Input: a stream of operations, one byte each plus its arguments (see
// run_op). A fresh engine per input; the lapi context lives for the process.
//
// Checks, besides the sanitizers: no call returns an error class outside
// the documented ones for what the harness did, a completed receive never
// reports more bytes than its buffer holds, and the engine can always be
// torn down without leaking.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "lapi/context.hpp"
#include "mpcpi/mpcpi.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

using lapis::fuzz::Input;
using lapis::fuzz::require;

lapi::Context& context() {
  static std::unique_ptr<lapi::Context> ctx = [] {
    lapi::Config config;
    config.mode = lapi::ProgressMode::polling;
    config.policy = lapi::CompletionPolicy::inline_run;
    std::unique_ptr<lapi::Context> c;
    const lapi::Status s = lapi::Context::init(config, c);
    require(s.ok());
    return c;
  }();
  return *ctx;
}

// A pending operation and the buffer it owns.
struct Pending {
  mpcpi::Request* req;
  std::vector<std::uint8_t> buf;
};

constexpr std::size_t kHeaderSizes[] = {0, 8, 16, 24, 32, 40};

bool known_error(mpcpi::Errc rc) {
  // What a one-task job with forged peers may see: never an internal error.
  return rc != mpcpi::Errc::transport && rc != mpcpi::Errc::terminated;
}

struct Harness {
  mpcpi::Engine& engine;
  std::vector<Pending> pending;
  std::vector<mpcpi::Message*> messages;
  std::uint32_t next_seq = 0;  // the seq this harness expects the receiver to want next

  void finish(std::size_t i, const mpcpi::Status& st) {
    require(st.bytes <= pending[i].buf.size() || pending[i].buf.empty());
    pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
  }

  void forge(Input& in) {
    const std::uint8_t type = in.byte() % static_cast<std::uint8_t>(mpcpi::kNumHandlerIds);
    const std::uint8_t shape = in.byte();
    // Mostly a header of some real message's size, sometimes any length.
    const std::size_t uhdr_len = (shape & 0x80) != 0 ? in.byte() % 48 : kHeaderSizes[shape % 6];
    std::vector<std::uint8_t> uhdr = in.bytes(uhdr_len);
    uhdr.resize(uhdr_len);
    // Envelope-led headers (eager, ready, rts): often the in-order seq, so
    // that forged messages reach matching rather than the reorder check.
    if (uhdr_len >= 12 && (shape & 0x40) != 0) std::memcpy(uhdr.data() + 8, &next_seq, 4);
    if (uhdr_len >= 12 && type <= 2 && (shape & 0x40) != 0) ++next_seq;
    std::vector<std::uint8_t> data = in.bytes(in.byte());
    const lapi::HandlerId id = mpcpi::kDefaultFirstHandlerId + type;
    (void)context().amsend(0, id, uhdr.data(), uhdr.size(), data.data(), data.size());
  }

  void run_op(Input& in) {
    const std::uint8_t op = in.byte();
    const std::uint32_t context_id = op >> 5 & 3;  // a few contexts, so that things match
    // FUZZ_TRACE=1 prints each operation (to replay a finding by hand).
    static const bool trace = std::getenv("FUZZ_TRACE") != nullptr;
    if (trace) std::fprintf(stderr, "op %u context %u, %zu pending\n", op % 8, context_id, pending.size());
    switch (op % 8) {
      case 0:
        forge(in);
        break;
      case 1: {  // a real send to ourselves
        const auto mode = static_cast<mpcpi::SendMode>(in.byte() % 4);
        const int tag = in.byte() % 4;
        std::vector<std::uint8_t> buf = in.bytes(std::size_t{in.byte()} * 3);
        mpcpi::Request* req = nullptr;
        const mpcpi::Errc rc = engine.isend(buf.data(), buf.size(), 0, tag, context_id, mode, req);
        require(known_error(rc));
        if (trace) std::fprintf(stderr, "  isend mode %d, %zu bytes: error %d, req %p\n", static_cast<int>(mode), buf.size(), static_cast<int>(rc), static_cast<void*>(req));
        if (rc == mpcpi::Errc::success) {
          if (mode != mpcpi::SendMode::ready) ++next_seq;
          if (req != nullptr) pending.push_back({req, std::move(buf)});
        }
        break;
      }
      case 2: {  // a receive, maybe with wildcards
        const std::uint8_t b = in.byte();
        const int source = (b & 1) != 0 ? mpcpi::kAnySource : 0;
        const int tag = (b & 2) != 0 ? mpcpi::kAnyTag : (b >> 2) % 4;
        std::vector<std::uint8_t> buf(std::size_t{in.byte()} * 3);
        mpcpi::Request* req = nullptr;
        const mpcpi::Errc rc = engine.irecv(buf.data(), buf.size(), source, tag, context_id, req);
        require(known_error(rc));
        if (rc == mpcpi::Errc::success) pending.push_back({req, std::move(buf)});
        break;
      }
      case 3: {  // test one pending operation
        if (pending.empty()) break;
        const std::size_t i = in.byte() % pending.size();
        bool done = false;
        mpcpi::Status st;
        const mpcpi::Errc rc = engine.test(pending[i].req, done, &st);
        require(known_error(rc));
        if (trace) std::fprintf(stderr, "  test %zu: done %d error %d\n", i, done, static_cast<int>(rc));
        if (done) finish(i, st);
        break;
      }
      case 4: {  // cancel one
        if (pending.empty()) break;
        const std::size_t i = in.byte() % pending.size();
        if (trace) std::fprintf(stderr, "  cancel %zu (%p)\n", i, static_cast<void*>(pending[i].req));
        require(known_error(engine.cancel(pending[i].req)));
        break;
      }
      case 5: {  // probe, maybe matched, and receive what it found
        mpcpi::Status st;
        mpcpi::Message* msg = nullptr;
        const std::uint8_t b = in.byte();
        const int tag = (b & 2) != 0 ? mpcpi::kAnyTag : (b >> 2) % 4;
        if (trace) std::fprintf(stderr, "  %s tag %d\n", (b & 1) != 0 ? "iprobe" : "improbe", tag);
        if ((b & 1) != 0) {
          bool found = false;
          require(known_error(engine.iprobe(mpcpi::kAnySource, tag, context_id, found, &st)));
        } else if (engine.improbe(mpcpi::kAnySource, tag, context_id, msg, &st) ==
                       mpcpi::Errc::success &&
                   msg != nullptr) {
          std::vector<std::uint8_t> buf(std::min<std::size_t>(st.bytes, 1u << 20));
          mpcpi::Request* req = nullptr;
          require(known_error(engine.imrecv(msg, buf.data(), buf.size(), req)));
          if (req != nullptr) pending.push_back({req, std::move(buf)});
        }
        break;
      }
      case 6:
        require(known_error(engine.progress()));
        break;
      case 7: {  // MPI_Request_free: the engine completes it on its own
        if (pending.empty()) break;
        const std::size_t i = in.byte() % pending.size();
        require(known_error(engine.request_free(pending[i].req)));
        // The buffer must outlive the operation: keep it until the engine goes.
        orphaned.push_back(std::move(pending[i].buf));
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }

  // Completes or cancels what is left, so the engine can be torn down.
  void drain() {
    for (int round = 0; round < 4; ++round) {
      // Take in whatever arrived unexpectedly, so its credit goes back.
      for (std::uint32_t ctx = 0; ctx < 4; ++ctx) {
        mpcpi::Message* msg = nullptr;
        mpcpi::Status st;
        while (engine.improbe(mpcpi::kAnySource, mpcpi::kAnyTag, ctx, msg, &st) ==
                   mpcpi::Errc::success &&
               msg != nullptr) {
          std::vector<std::uint8_t> buf(std::min<std::size_t>(st.bytes, 1u << 20));
          mpcpi::Request* req = nullptr;
          require(known_error(engine.imrecv(msg, buf.data(), buf.size(), req)));
          if (req != nullptr) pending.push_back({req, std::move(buf)});
        }
      }
      for (std::size_t i = 0; i < pending.size();) {
        bool done = false;
        mpcpi::Status st;
        if (round == 2) (void)engine.cancel(pending[i].req);
        (void)engine.test(pending[i].req, done, &st);
        if (done) {
          finish(i, st);
        } else {
          ++i;
        }
      }
      if (pending.empty()) break;
    }
    // What no cancel could stop (a send whose forged clear-to-send never
    // comes, say) is freed; the engine releases it on teardown.
    for (Pending& p : pending) {
      (void)engine.request_free(p.req);
      orphaned.push_back(std::move(p.buf));
    }
    pending.clear();
  }

  std::vector<std::vector<std::uint8_t>> orphaned;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  Input in(data, size);
  mpcpi::Options options;
  const std::uint8_t setup = in.byte();
  constexpr std::size_t kEagerLimits[] = {0, 64, 1024, mpcpi::kDefaultEagerLimit};
  options.eager_limit = kEagerLimits[setup % 4];
  options.early_arrival_max = (setup & 4) != 0 ? 4096 : mpcpi::kDefaultEarlyArrivalMax;
  options.set_completion_policy = false;
  std::unique_ptr<mpcpi::Engine> engine;
  require(mpcpi::Engine::create(context(), options, engine) == mpcpi::Errc::success);
  static std::array<std::uint8_t, 1 << 16> bsend_buffer;
  require(engine->buffer_attach(bsend_buffer.data(), bsend_buffer.size()) == mpcpi::Errc::success);
  {
    Harness h{*engine, {}, {}, 0, {}};
    for (int ops = 0; !in.empty() && ops < 256; ++ops) h.run_op(in);
    h.drain();
    // No finalize: it waits for sends held back by flow control, which a
    // forged exchange may hold for good; teardown must cope without it.
    engine.reset();
  }
  return 0;
}
