// A driver for the fuzz harness (fuzz_attention.cpp) where libFuzzer does not exist: the wasm32
// build, made with em++ and ASan and UBSan by scripts/fuzz.js and run in node. In wasm32 size_t
// has 32 bits, as in the browser, so the harness meets the narrowing class the 64-bit native
// build cannot: a size of 2^32 + 2 cast to size_t is undefined behaviour UBSan stops at.
//
//   node build/fuzz/fuzz_attention_wasm32.js SECONDS SEED CRASH_DIR DIR...
//
// Runs every input file of the directories (the seeds, and the corpus the native run grew),
// then random mutations of them until SECONDS have passed (not coverage-guided: the native
// libFuzzer run does the exploring, this one replays and perturbs what it found in 32 bits).
// On a failed check or a sanitizer report, the input is written to CRASH_DIR. Prints the
// number of executions.

#include <dirent.h>
#include <sanitizer/common_interface_defs.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::uint8_t> current;  // the input being run, for the crash file
std::string crash_dir;

void save_current() {
    const std::string path = crash_dir + "/wasm32-crash";
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(current.data()), current.size());
    std::fprintf(stderr, "wasm32: input written to %s (%zu bytes)\n", path.c_str(), current.size());
}

std::vector<std::vector<std::uint8_t>> read_inputs(const std::vector<std::string>& dirs) {
    std::vector<std::vector<std::uint8_t>> out;
    for (const std::string& dir : dirs) {
        DIR* d = opendir(dir.c_str());
        if (!d) continue;
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::ifstream file(dir + "/" + e->d_name, std::ios::binary);
            out.emplace_back(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
        }
        closedir(d);
    }
    return out;
}

void run(const std::vector<std::uint8_t>& input) {
    current = input;
    LLVMFuzzerTestOneInput(current.data(), current.size());
}

// A few random edits of a corpus input: bytes changed, inserted, removed, repeated or cut.
std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> x, std::mt19937_64& rng) {
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
        const std::size_t at = x.empty() ? 0 : rng() % x.size();
        switch (rng() % 6) {
            case 0: if (!x.empty()) x[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
            case 1: if (!x.empty()) x[at] = static_cast<std::uint8_t>(rng()); break;
            case 2: x.insert(x.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(rng())); break;
            case 3: if (!x.empty()) x.erase(x.begin() + static_cast<std::ptrdiff_t>(at)); break;
            case 4: if (x.size() > 1 && x.size() < 4096) x.insert(x.end(), x.begin() + static_cast<std::ptrdiff_t>(at), x.end()); break;
            default: x.resize(at); break;
        }
    }
    return x;
}

}  // namespace

// The harness calls this before it aborts on a failed check (a weak symbol there).
extern "C" void attnlab_fuzz_failed() { save_current(); }

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: SECONDS SEED CRASH_DIR DIR...\n");
        return 2;
    }
    const double seconds = std::atof(argv[1]);
    std::mt19937_64 rng(std::strtoull(argv[2], nullptr, 10));
    crash_dir = argv[3];
    __sanitizer_set_death_callback(save_current);
    const auto inputs = read_inputs(std::vector<std::string>(argv + 4, argv + argc));
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    std::uint64_t executions = 0;
    for (const auto& input : inputs) {
        run(input);
        ++executions;
    }
    const std::uint64_t replayed = executions;
    while (elapsed() < seconds) {
        for (int i = 0; i < 64; ++i) {
            if (inputs.empty() || rng() % 8 == 0) {
                std::vector<std::uint8_t> fresh(rng() % 256);
                for (auto& b : fresh) b = static_cast<std::uint8_t>(rng());
                run(fresh);
            } else {
                run(mutate(inputs[rng() % inputs.size()], rng));
            }
            ++executions;
        }
    }
    std::printf("wasm32: %llu executions (%llu inputs replayed, then mutations) in %.0f s, no failure\n",
                static_cast<unsigned long long>(executions), static_cast<unsigned long long>(replayed), elapsed());
    return 0;
}
