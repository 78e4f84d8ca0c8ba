#pragma once
// Which sanitizer this test binary was built with, for the tests whose
// budgets (memory growth, amount of work) must allow for its overhead, and
// the jobs ThreadSanitizer can learn something from. GCC
// defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; Clang answers through
// the preprocessor's __has_feature instead.

#if defined(__SANITIZE_ADDRESS__)
#define LAPIS_TESTING_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LAPIS_TESTING_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define LAPIS_TESTING_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LAPIS_TESTING_TSAN 1
#endif
#endif

#include <algorithm>
#include <string>
#include <vector>

namespace lapis::testing {

#if defined(LAPIS_TESTING_ASAN)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(LAPIS_TESTING_TSAN)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif

// Either of them: every rank runs several times slower, so the suites that
// start many jobs run fewer rank counts (the default build runs them all).
inline constexpr bool kSanitized = kAddressSanitizer || kThreadSanitizer;

// Whether a rank started with these settings runs a thread besides its own
// in the library: interrupt mode's progress thread, the thread and fiber
// completion policies, the MPI point-to-point layer's base variant. Polling
// mode with inline handlers (the default) starts none, and what ranks share
// is between processes, beyond ThreadSanitizer's sight: under it such jobs
// check nothing the other builds do not, and tests leave them out.
inline bool starts_threads(const std::vector<std::string>& env) {
  static const char* const kThreaded[] = {"LAPIS_MODE=interrupt", "LAPIS_POLICY=thread",
                                          "LAPIS_POLICY=fiber", "LAPIS_MPI_VARIANT=base"};
  return std::any_of(env.begin(), env.end(), [](const std::string& e) {
    return std::find(std::begin(kThreaded), std::end(kThreaded), e) != std::end(kThreaded);
  });
}
inline bool worth_running(const std::vector<std::string>& env) {
  return !kThreadSanitizer || starts_threads(env);
}

}  // namespace lapis::testing
