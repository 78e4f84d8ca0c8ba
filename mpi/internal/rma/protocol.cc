// The windows' Amsend protocol (protocol.hpp): the request handler that runs
// accumulates, fetches and non-contiguous transfers at the target, and the
// answer handler that completes them at the origin.
//
// Both header handlers only pick a landing buffer (they may not send); the
// work and the answer happen in the completion handlers, which may.
#include "mpi/internal/rma/protocol.hpp"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "mpi/internal/errors.hpp"
#include "mpi/internal/rma/apply.hpp"
#include "mpi/internal/runtime.hpp"

namespace mpi::rma {
namespace {

// ---- registries (touched by MPI calls and by handlers on lapi's threads)

std::mutex g_windows_mutex;  // guards g_windows
std::vector<WinPtr> g_windows(1);  // id 0 is never used

WinPtr window_by_id(std::uint32_t id) {
  std::lock_guard lock(g_windows_mutex);
  return id < g_windows.size() ? g_windows[id] : nullptr;
}

std::mutex g_pending_mutex;  // guards g_pending
std::unordered_map<std::uint64_t, std::unique_ptr<Pending>> g_pending;

// An answer's bytes, kept until lapi says the Amsend no longer reads them.
struct AnswerBuf {
  lapi::Counter sent;
  std::vector<std::byte> data;
};
std::mutex g_answers_mutex;  // guards g_answers
std::vector<std::unique_ptr<AnswerBuf>> g_answers;
std::atomic<bool> g_answers_held{false};  // g_answers may be non-empty (skips the lock)

// ---- target side

struct TargetJob {
  RequestWire req;
  lapi::TaskId src = 0;
  int origin = 0;  // communicator rank of src
  WinPtr win;
  std::vector<std::byte> data;
};

struct Answer {
  lapi::TaskId to = 0;
  AnswerWire wire;
  std::vector<std::byte> data;
};

// Runs one request (acc_lock held); fills the answer.
void run(TargetJob& job, Answer& answer) {
  const RequestWire& r = job.req;
  Window& win = *job.win;
  auto fail_with = [&](int cls) {
    answer.wire.error = cls;
    answer.data.clear();
  };
  const std::size_t block_bytes = std::size_t{r.nblocks} * sizeof(WireBlock);
  if (block_bytes > job.data.size() || job.data.size() - block_bytes != r.payload) {
    fail_with(fail(MPI_ERR_INTERN, "malformed request (length)"));
    return;
  }
  std::vector<WireBlock> blocks(r.nblocks);
  std::memcpy(blocks.data(), job.data.data(), block_bytes);
  const std::byte* payload = job.data.data() + block_bytes;
  std::vector<WireBlock> ranges;
  std::uint64_t total = 0;
  const bool dynamic = win.flavor == MPI_WIN_FLAVOR_DYNAMIC;
  const Bounds bounds{static_cast<std::int64_t>(win.size), dynamic ? &win.attached : nullptr};
  if (int rc = ranges_of(bounds, r, blocks.data(), ranges, total)) {
    fail_with(rc);
    return;
  }
  const auto kind = static_cast<Kind>(r.kind);
  const bool fetches = kind == Kind::get || kind == Kind::get_accumulate || kind == Kind::compare_and_swap;
  const std::uint64_t expect_payload =
      kind == Kind::get ? 0 : kind == Kind::compare_and_swap ? 2 * total : total;
  if (r.payload != expect_payload || (fetches && r.answer != total) || (!fetches && r.answer != 0)) {
    fail_with(fail(MPI_ERR_INTERN, "malformed request (sizes)"));
    return;
  }
  if (fetches) answer.data.resize(total);
  std::byte* fetched = fetches ? answer.data.data() : nullptr;
  // Offsets are from the window's base, or absolute addresses (dynamic).
  const std::uintptr_t base = dynamic ? 0 : reinterpret_cast<std::uintptr_t>(win.base);
  const bool accumulates = kind != Kind::put && kind != Kind::get;
  int rc;
  if (win.locked && accumulates) {
    AccLock hold(acc_word_of(win.lock_word));
    rc = apply(r, ranges, total, base, payload, fetched, false);
  } else {
    rc = apply(r, ranges, total, base, payload, fetched, !win.locked);
  }
  if (rc != MPI_SUCCESS) fail_with(rc);
}

void send_answer(lapi::Context& ctx, Answer& a) {
  lapi::Counters counters;
  const void* data = nullptr;
  std::size_t len = 0;
  if (!a.data.empty()) {
    auto buf = std::make_unique<AnswerBuf>();
    buf->data = std::move(a.data);
    data = buf->data.data();
    len = buf->data.size();
    counters.origin = &buf->sent;
    std::lock_guard lock(g_answers_mutex);
    g_answers.push_back(std::move(buf));
    g_answers_held.store(true, std::memory_order_relaxed);
  }
  // Fails only when the origin is gone; nothing to tell anyone then.
  (void)ctx.amsend(a.to, kAnswerHandler, &a.wire, sizeof a.wire, data, len, counters);
}

void on_request_landed(lapi::Context& ctx, void* user_info, void*) {
  std::unique_ptr<TargetJob> job(static_cast<TargetJob*>(user_info));
  Window& win = *job->win;
  std::vector<Answer> answers;
  {
    std::lock_guard lock(win.acc_lock);
    const auto o = static_cast<std::size_t>(job->origin);
    if (const std::uint64_t seq = job->req.seq; seq != win.next_seq[o]) {
      win.early[o].emplace(seq, job.release());  // a predecessor is still on its way
      return;
    }
    while (job) {
      Answer& a = answers.emplace_back();
      a.to = job->src;
      a.wire.cookie = job->req.cookie;
      run(*job, a);
      publish_handler_writes();  // before the answer lets anyone learn of them
      ++win.next_seq[o];
      job.reset();
      auto next = win.early[o].find(win.next_seq[o]);
      if (next != win.early[o].end()) {
        job.reset(static_cast<TargetJob*>(next->second));
        win.early[o].erase(next);
      }
    }
  }
  for (Answer& a : answers) send_answer(ctx, a);
}

// Header handler: may not send. Unknown windows or malformed headers are
// refused (reported to the origin by lapi).
lapi::Landing on_request(lapi::Context&, const lapi::AmHeaderInfo& info) {
  lapi::Landing landing;
  RequestWire req;
  if (info.uhdr_len != sizeof req) {
    landing.refuse = static_cast<int>(lapi::Errc::hdr_len);
    return landing;
  }
  std::memcpy(&req, info.uhdr, sizeof req);
  WinPtr win = window_by_id(req.win_id);
  const int origin = win ? win->comm->rank_of_world(static_cast<int>(info.src)) : -1;
  if (!win || origin < 0) {
    landing.refuse = static_cast<int>(lapi::Errc::remote_refused);
    return landing;
  }
  auto job = std::make_unique<TargetJob>();
  job->req = req;
  job->src = info.src;
  job->origin = origin;
  job->win = std::move(win);
  job->data.resize(info.data_len);
  landing.buffer = info.data_len ? job->data.data() : nullptr;
  landing.on_complete = on_request_landed;
  landing.user_info = job.release();
  return landing;
}

// ---- origin side

void record_error(Window& win, int cls, std::string detail) {
  int none = 0;
  static std::mutex writing;  // only the first error's detail is kept
  std::lock_guard lock(writing);
  if (win.remote_error.load(std::memory_order_acquire) != 0) return;
  win.remote_error_detail = std::move(detail);
  win.remote_error.compare_exchange_strong(none, cls, std::memory_order_release);
}

void on_answer_landed(lapi::Context&, void* user_info, void* error_arg) {
  std::unique_ptr<Pending> p(static_cast<Pending*>(user_info));
  const int error = static_cast<int>(reinterpret_cast<std::intptr_t>(error_arg));
  if (error != 0) {
    record_error(*p->win, error,
                 fmt::format("target rank {} refused the access: {}", p->target,
                             error == MPI_ERR_RMA_RANGE ? "outside its window (or no attached memory there)"
                                                        : "error class " + std::to_string(error)));
  } else if (!p->staging.empty()) {
    unpack(*p->result_type, p->result_user, p->result_count, p->staging.data(),
           static_cast<std::int64_t>(p->staging.size()));
  }
  p->win->answers[static_cast<std::size_t>(p->target)]->add();
}

lapi::Landing on_answer(lapi::Context&, const lapi::AmHeaderInfo& info) {
  lapi::Landing landing;
  AnswerWire a;
  if (info.uhdr_len != sizeof a) {
    landing.refuse = static_cast<int>(lapi::Errc::hdr_len);
    return landing;
  }
  std::memcpy(&a, info.uhdr, sizeof a);
  std::unique_ptr<Pending> p;
  {
    std::lock_guard lock(g_pending_mutex);
    auto it = g_pending.find(a.cookie);
    if (it == g_pending.end()) {
      landing.refuse = static_cast<int>(lapi::Errc::remote_refused);  // forged or stale
      return landing;
    }
    p = std::move(it->second);
    g_pending.erase(it);
  }
  int error = a.error;
  if (error == 0 && info.data_len != p->answer_bytes) error = MPI_ERR_INTERN;
  if (error == 0 && info.data_len > 0) landing.buffer = p->answer_into;
  landing.on_complete = on_answer_landed;
  landing.completion_arg = reinterpret_cast<void*>(static_cast<std::intptr_t>(error));
  landing.user_info = p.release();
  return landing;
}

}  // namespace

std::uint32_t register_window(const WinPtr& win) {
  std::lock_guard lock(g_windows_mutex);
  for (std::uint32_t id = 1; id < g_windows.size(); ++id) {
    if (!g_windows[id]) {
      g_windows[id] = win;
      return id;
    }
  }
  g_windows.push_back(win);
  return static_cast<std::uint32_t>(g_windows.size() - 1);
}

void unregister_window(std::uint32_t id) {
  std::lock_guard lock(g_windows_mutex);
  if (id < g_windows.size()) g_windows[id].reset();
}

std::uint64_t track(std::unique_ptr<Pending> p) {
  const auto cookie = reinterpret_cast<std::uint64_t>(p.get());
  std::lock_guard lock(g_pending_mutex);
  g_pending.emplace(cookie, std::move(p));
  return cookie;
}

void reap_answers() {
  if (!g_answers_held.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(g_answers_mutex);
  std::erase_if(g_answers, [](const std::unique_ptr<AnswerBuf>& b) { return b->sent.get() >= 1; });
  g_answers_held.store(!g_answers.empty(), std::memory_order_relaxed);
}

int ensure_protocol_registered() {
  static bool registered = false;  // MPI calls are serialised
  if (registered) return MPI_SUCCESS;
  lapi::Context& ctx = lapi_context();
  std::int64_t max_uhdr = 0;
  (void)ctx.qenv(lapi::Query::max_uhdr_size, max_uhdr);
  if (max_uhdr < static_cast<std::int64_t>(sizeof(RequestWire))) {
    return fail(MPI_ERR_INTERN, "lapi's user header limit ({} bytes) is below the RMA header's {}",
                max_uhdr, sizeof(RequestWire));
  }
  lapi::Status s = ctx.register_handler(kRequestHandler, on_request);
  if (s.ok()) s = ctx.register_handler(kAnswerHandler, on_answer);
  if (!s.ok()) return fail(MPI_ERR_INTERN, "registering the RMA handlers: {}", s.message());
  registered = true;
  return MPI_SUCCESS;
}

}  // namespace mpi::rma
