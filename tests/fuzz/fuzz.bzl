"""One libFuzzer harness = a binary and a corpus test.

`<name>` is the harness program. Built with --config=fuzz (tools/fuzz.sh:
clang, libFuzzer, ASan, UBSan) it is a libFuzzer binary; in the default
build (gcc) it is a replay driver that runs the files and folders it is
given through the same entry point, so a finding can be replayed anywhere.
`<name>_corpus_test` runs the checked-in corpus (corpus/<name>/) through the
harness in the normal test suite, so every input a past run kept, and every
input that once crashed, stays a regression test.
"""

def fuzz_harness(name, srcs, deps):
    corpus = "corpus/" + name
    native.cc_binary(
        name = name,
        srcs = srcs,
        testonly = True,
        linkopts = select({
            ":libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
        deps = deps + select({
            ":libfuzzer": [],
            "//conditions:default": [":replay_main"],
        }),
    )
    native.cc_test(
        name = name + "_corpus_test",
        srcs = srcs + ["corpus_test_main.cc"],
        data = native.glob([corpus + "/*"]),
        local_defines = ["FUZZ_CORPUS='\"tests/fuzz/" + corpus + "\"'"],
        deps = deps + [":replay", "//third_party/doctest:main"],
    )
