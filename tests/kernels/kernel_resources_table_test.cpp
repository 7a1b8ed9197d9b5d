// The register table the build generates from ptxas: complete, and consistent with the planners.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/device_spec.h"
#include "kernels/attention/plan.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

std::vector<int> builtArchs() {
    std::vector<int> archs;
    std::stringstream list(TILESCOPE_CUDA_ARCHS);
    for (std::string item; std::getline(list, item, ',');) archs.push_back(std::stoi(item));
    return archs;
}

bool hasEntry(std::string_view symbol, int sm) {
    for (const auto& e : compiledKernelResources().entries())
        if (e.symbol == symbol && e.smVersion == sm) return true;
    return false;
}

TEST(KernelResourceTable, EveryPlannerSymbolHasAnEntryForEveryBuiltArch) {
    ASSERT_FALSE(compiledKernelResources().empty());
    const std::vector<int> archs = builtArchs();
    ASSERT_FALSE(archs.empty());
    for (const auto& family : builtinKernels().families()) {
        // custom models launches it has no code for: its label is no device function of this build.
        if (!family->hasDeviceCode()) continue;
        for (std::string_view symbol : family->kernelSymbols())
            for (int sm : archs) {
                EXPECT_TRUE(hasEntry(symbol, sm)) << family->name() << ": " << symbol << " sm_" << sm;
                if (family->hasBf16Kernels()) {
                    EXPECT_TRUE(hasEntry(std::string(symbol) + "_bf16", sm)) << symbol << "_bf16 sm_" << sm;
                }
            }
    }
}

TEST(KernelResourceTable, FamiliesWithoutDeviceCodeHaveNoEntries) {
    // Their registers come from the shape: a table entry would silently override them.
    for (const auto& family : builtinKernels().families()) {
        if (family->hasDeviceCode()) continue;
        for (std::string_view symbol : family->kernelSymbols())
            for (const auto& e : compiledKernelResources().entries()) EXPECT_NE(e.symbol, symbol) << family->name();
    }
}

TEST(KernelResourceTable, EntriesAreCompilerFigures) {
    for (const auto& e : compiledKernelResources().entries()) {
        EXPECT_GT(e.resources.registers, 0) << e.symbol;
        EXPECT_LE(e.resources.registers, 255) << e.symbol;
        EXPECT_GE(e.resources.staticSmem, 0) << e.symbol;
    }
}

// Each planner's staticSmem claim equals what ptxas allocated, on every database device, for
// shapes that reach every symbol.
TEST(KernelResourceTable, StaticSmemEqualsThePlannersClaim) {
    const std::vector<std::pair<std::string, std::vector<std::string>>> shapes = {
        {"awq_gemv", {"M=1,N=4096,K=4096,group_size=128", "M=1,N=4096,K=4096,group_size=64", "M=2", "M=3", "M=4", "M=5", "M=6", "M=7"}},
        {"awq_gemm", {"M=16,N=4096", "M=16,N=4160,group_size=64", "M=1", "M=48", "M=100", "M=160", "M=1000"}},
        {"attention",
         {"head_dim=32,head_dim_v=32", "head_dim=64,head_dim_v=64", "head_dim=96,head_dim_v=96", "head_dim=128,head_dim_v=128",
          "head_dim=128,head_dim_v=128,causal=1", "head_dim=192,head_dim_v=192", "head_dim=256,head_dim_v=256", "head_dim=64,head_dim_v=64",
          "head_dim=200,head_dim_v=200",
          // d96 causal on sm_86/sm_89 takes 64x64 (run_mha_fwd_hdim96); decode splits the K/V (split-KV)
          "head_dim=96,head_dim_v=96,causal=1,seqlen_q=512", "seqlen_q=1,seqlen_k=32768,head_dim=32,head_dim_v=32",
          "seqlen_q=1,seqlen_k=32768,head_dim=64,head_dim_v=64", "seqlen_q=1,seqlen_k=32768,head_dim=96,head_dim_v=96",
          "seqlen_q=1,seqlen_k=32768,head_dim=128,head_dim_v=128", "seqlen_q=1,seqlen_k=32768,head_dim=192,head_dim_v=192",
          "seqlen_q=1,seqlen_k=32768,head_dim=256,head_dim_v=256"}},
        {"gemm_bucket", {"M=8", "M=32", "M=64", "M=128", "M=256", "M=512"}},
    };
    std::set<std::string> reached;
    const auto& db = DeviceDatabase::embedded();
    // Two SM120 variants with smaller opt-in limits walk the (256,256) tile search past (64,64).
    std::vector<DeviceSpec> devices = db.devices();
    // The database also lists GPUs of architectures this build compiles no code for (Pascal and Volta:
    // CUDA 13 targets sm_75 and newer; sm_110 is not in TILESCOPE_CUDA_ARCHS): the table has nothing to hold them to.
    // A device runs the code of the highest compiled arch of its major at or below it (KernelResourceTable::find).
    auto compiledFor = [](const DeviceSpec& d) {
        const auto entries = compiledKernelResources().entries();
        return std::any_of(entries.begin(), entries.end(), [&](const KernelResourceEntry& e) {
            return e.smVersion / 10 == d.computeCapability.major && e.smVersion <= d.computeCapability.smVersion();
        });
    };
    std::erase_if(devices, [&](const DeviceSpec& d) { return !compiledFor(d); });
    const DeviceSpec* sm120 = db.find("rtx-5090");
    ASSERT_NE(sm120, nullptr);
    for (std::int64_t optin : {90000, 84500}) {
        DeviceSpec smaller = *sm120;
        smaller.id = "rtx-5090-optin-" + std::to_string(optin);
        smaller.smemPerBlockOptin = optin;
        devices.push_back(smaller);
    }
    for (const auto& [familyName, texts] : shapes) {
        const KernelFamily* family = builtinKernels().find(familyName);
        ASSERT_NE(family, nullptr);
        for (int variant = 0; variant < static_cast<int>(family->variants().size()); ++variant)
            for (const auto& text : texts) {
                // attention's fa2_bwd (issue 29) plans upstream's backward kernel, which this build does not compile.
                if (family->variants()[static_cast<std::size_t>(variant)].name == "fa2_bwd") continue;
                auto shape = parseShape(text, family->parameters());
                ASSERT_TRUE(shape.ok()) << text;
                for (const auto& device : devices) {
                    const LaunchPlan call = family->plan(variant, *shape, device, PlanDetail::Brief);
                    if (call.kernelSymbol.empty()) continue;
                    // Every launch of the call: split-KV attention is followed by its combine kernel.
                    std::vector<LaunchPlan> launches{call};
                    for (const ExtraLaunch& extra : call.extraLaunches)
                        if (!extra.chosenByLibrary()) launches.push_back(extraLaunchPlan(call, extra));  // cuBLAS: not ours
                    for (const LaunchPlan& plan : launches) {
                        reached.insert(std::string(plan.kernelSymbol));
                        const auto found = compiledKernelResources().find(plan.kernelSymbol, device.computeCapability);
                        ASSERT_TRUE(found) << plan.kernelSymbol << " on " << device.id;
                        EXPECT_EQ(found->staticSmem, plan.staticSmem) << plan.kernelSymbol << " on " << device.id;
                        if (&plan == &launches.front()) {
                            EXPECT_EQ(plan.registers, found->registers) << "the planner reads the table: " << plan.kernelSymbol;
                        }
                    }
                }
            }
    }
    for (const auto& family : builtinKernels().families())
        for (std::string_view symbol : family->kernelSymbols())
            // (48,64) follows (64,48) in the search but needs more smem for hd = hdv = 256: unreachable.
            if (family->hasDeviceCode() && symbol != "flash_fwd_sm120_m48n64_sheared") {
                EXPECT_TRUE(reached.count(std::string(symbol))) << "no test shape reaches " << symbol;
            }
}

}  // namespace
}  // namespace tilescope
