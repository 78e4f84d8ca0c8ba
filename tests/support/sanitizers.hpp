#pragma once
// Which sanitizer this test binary was built with, for the few tests whose
// budgets (memory growth, amount of work) must allow for its overhead. GCC
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

}  // namespace lapis::testing
