// Shape parsing, verdict names and precedence, and kernel/variant resolution: the inputs every
// front-end passes to the planners.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>

#include "core/model/verdict.h"
#include "test_support.h"

namespace tilescope {
namespace {

using test::kernel;

TEST(Verdict, NamesRoundTripInKernelsMdPrecedence) {
    const char* names[] = {"unsupported_device", "unsupported_shape", "bucket_overflow", "no_tile_fits",
                           "invalid_launch",     "out_of_resources",  "out_of_memory",   "ok"};
    ASSERT_EQ(kAllVerdicts.size(), std::size(names));
    for (std::size_t i = 0; i < kAllVerdicts.size(); ++i) {
        EXPECT_EQ(verdictName(kAllVerdicts[i]), names[i]);
        EXPECT_EQ(verdictFromName(names[i]), kAllVerdicts[i]);
        EXPECT_FALSE(verdictDescription(kAllVerdicts[i]).empty());
        if (i > 0) {
            EXPECT_LT(kAllVerdicts[i - 1], kAllVerdicts[i]);  // the enum order is the precedence
        }
    }
    EXPECT_FALSE(verdictFromName("invalid_configuration"));
}

TEST(Shape, ParseKeepsDefaultsAndChecksRanges) {
    const KernelChoice k = kernel("awq_gemm", "");
    const auto& parameters = k.family->parameters();
    auto s = parseShape(" M = 32768 , N=5376,", parameters);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(formatShape(*s, parameters), "M=32768,N=5376,K=4096,group_size=128");
    EXPECT_EQ(formatShape(parseShape("", parameters).value(), parameters), "M=16,N=4096,K=4096,group_size=128");
    EXPECT_EQ(parseShape("M=+8", parameters)->operator[](0), 8);
    EXPECT_EQ(parseShape("M", parameters).error(), "'M' is not NAME=VALUE; parameters: M, N, K, group_size");
    EXPECT_EQ(parseShape("m=1", parameters).error(), "unknown parameter 'm'; parameters: M, N, K, group_size");
    EXPECT_EQ(parseShape("M=1.5", parameters).error(), "M: '1.5' is not an integer");
    EXPECT_EQ(parseShape("M=99999999999999999999", parameters).error(), "M: '99999999999999999999' does not fit in 64 bits");
    EXPECT_EQ(parseShape("group_size=0", parameters).error(), "group_size=0 is out of range; accepted: 1..4096");
    EXPECT_EQ(parseShape("K=1048577", parameters).error(), "K=1048577 is out of range; accepted: 0..1048576");
}

TEST(KernelChoice, ResolveFamiliesAndVariants) {
    const auto& registry = builtinKernels();
    // The bundled families first, then the launch-only ones (issue 16: custom, triton).
    EXPECT_TRUE(registry.names().starts_with("awq_gemv, awq_gemm, attention, gemm_bucket, custom")) << registry.names();
    auto byDefault = resolveKernel(registry, "attention", "");
    ASSERT_TRUE(byDefault.ok());
    EXPECT_EQ(byDefault->variantName(), "fa2");
    EXPECT_EQ(resolveKernel(registry, "awq_gemm", "prefill")->variant, 2);
    EXPECT_EQ(resolveKernel(registry, "gemm", "").error(), "unknown kernel 'gemm'; kernels: " + registry.names());
    EXPECT_EQ(resolveKernel(registry, "attention", "fa3").error(),
              "unknown variant 'fa3' of attention; variants: fa2, sm120_tile_search, fa2_bwd");
}

TEST(KernelChoice, EveryPlannedSymbolIsDeclared) {
    // The register table is keyed by kernelSymbol: a planner must only name symbols it declares.
    const DeviceSpec& device = test::device("h100-sxm");
    for (const auto& family : builtinKernels().families()) {
        const auto symbols = family->kernelSymbols();
        for (std::size_t v = 0; v < family->variants().size(); ++v) {
            if (test::modelOnlyVariant(*family, v)) continue;
            const auto& parameters = family->parameters();
            for (int p = 0; p < static_cast<int>(parameters.size()); ++p) {
                for (std::int64_t value = parameters[static_cast<std::size_t>(p)].minimum;
                     value <= std::min<std::int64_t>(parameters[static_cast<std::size_t>(p)].maximum, 1024); value += 7) {
                    Shape s = Shape::defaults(parameters);
                    s[p] = value;
                    const LaunchPlan plan = family->plan(static_cast<int>(v), s, device, PlanDetail::Brief);
                    if (plan.kernelSymbol.empty()) continue;
                    EXPECT_NE(std::find(symbols.begin(), symbols.end(), plan.kernelSymbol), symbols.end())
                        << family->name() << " " << plan.kernelSymbol;
                }
            }
        }
    }
}

}  // namespace
}  // namespace tilescope

namespace tilescope {
namespace {

// The GUI's spin boxes step through steppedValue (issue #15 item 7: M stepped by 1,000 and group_size by
// 10, 128 -> 138, straight into unsupported shapes).
TEST(SteppedValue, Log2ParametersStepThroughPowersOfTwo) {
    const ParameterList& awq = test::kernel("awq_gemm", "gemm").family->parameters();
    const ParameterSpec& group = awq[static_cast<std::size_t>(parameterIndex(awq, "group_size"))];
    EXPECT_EQ(steppedValue(group, 128, 1), 256);
    EXPECT_EQ(steppedValue(group, 128, -1), 64);
    EXPECT_EQ(steppedValue(group, 100, 1), 128);  // a typed value rejoins the powers of two
    EXPECT_EQ(steppedValue(group, 100, -1), 64);
    EXPECT_EQ(steppedValue(group, 1, -1), 1);  // clamped at the parameter's minimum
    const ParameterSpec& m = awq[static_cast<std::size_t>(parameterIndex(awq, "M"))];
    EXPECT_EQ(steppedValue(m, 16, 1), 32);
    EXPECT_EQ(steppedValue(m, 16, 3), 128);  // a held arrow passes several steps
    EXPECT_EQ(steppedValue(m, 1, -1), 0);
    EXPECT_EQ(steppedValue(m, 0, 1), 1);
    EXPECT_EQ(steppedValue(m, 4096, kPageStep), 8192);  // PageUp doubles
    EXPECT_EQ(steppedValue(m, 4096, -kPageStep), 2048);
    EXPECT_EQ(steppedValue(m, m.maximum, kPageStep), m.maximum);
}

TEST(SteppedValue, LinearParametersStepByTheKernelsAlignment) {
    const ParameterList& attention = test::kernel("attention", "fa2").family->parameters();
    const ParameterSpec& headDim = attention[static_cast<std::size_t>(parameterIndex(attention, "head_dim"))];
    EXPECT_EQ(headDim.alignment, 8);
    EXPECT_EQ(steppedValue(headDim, 128, 1), 136);
    EXPECT_EQ(steppedValue(headDim, 128, -1), 120);
    EXPECT_EQ(steppedValue(headDim, 130, 1), 136);  // off the grid: to the next multiple
    EXPECT_EQ(steppedValue(headDim, 130, -1), 128);
    EXPECT_EQ(steppedValue(headDim, 128, kPageStep), 256);
    EXPECT_EQ(steppedValue(headDim, 1000, kPageStep), 1024);  // clamped at head_dim's maximum
    const ParameterSpec& causal = attention[static_cast<std::size_t>(parameterIndex(attention, "causal"))];
    EXPECT_EQ(steppedValue(causal, 0, 1), 1);
    EXPECT_EQ(steppedValue(causal, 1, 1), 1);
    const ParameterSpec& splits = attention[static_cast<std::size_t>(parameterIndex(attention, "num_splits"))];
    EXPECT_EQ(steppedValue(splits, 7, 1), 8);
}

}  // namespace
}  // namespace tilescope
