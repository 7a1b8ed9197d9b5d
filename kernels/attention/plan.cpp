#include "kernels/attention/plan.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/launch_checks.h"
#include "kernels/attention/split_kv_index.h"
#include "kernels/builtin_kernels.h"
#include "kernels/plan_support.h"

namespace tilescope {

namespace {

using Tile = AttentionFamily::Tile;

// flash-attention v2.8.3 csrc/flash_attn/flash_api.cpp
constexpr int kMinSmVersion = 80;
constexpr std::int64_t kMaxHeadDim = 256;
constexpr std::int64_t kHeadDimMultiple = 8;
constexpr std::int64_t kElementBytes = 2;  // fp16 / bf16
// flash_fwd_launch_template.h: head_dim 256 takes 128x64/8 only on A100-like smem budgets.
constexpr std::int64_t kHdim256WideTileMinOptin = 131072;
constexpr std::int64_t kHdim256WideTileMaxSmemPerSm = 196608;

// kernel_traits.h tile table per head-dim bucket (no dropout). Symbols name our instantiations.
constexpr Tile kD32{128, 128, 4, "128x128/4", "flash_fwd_d32_m128n128w4"};
constexpr Tile kD64{128, 128, 4, "128x128/4", "flash_fwd_d64_m128n128w4"};
constexpr Tile kD96{128, 64, 4, "128x64/4", "flash_fwd_d96_m128n64w4"};
// flash_fwd_launch_template.h run_mha_fwd_hdim96: sm86/sm89 causal takes 64x64/4 ("because it's square").
constexpr Tile kD96Sm8xCausal{64, 64, 4, "64x64/4", "flash_fwd_d96_m64n64w4"};
constexpr Tile kD128{128, 64, 4, "128x64/4", "flash_fwd_d128_m128n64w4"};
constexpr Tile kD128Sm8xNonCausal{128, 32, 4, "128x32/4", "flash_fwd_d128_m128n32w4"};
constexpr Tile kD128Sm8xCausal{64, 64, 4, "64x64/4", "flash_fwd_d128_m64n64w4"};
constexpr Tile kD192{128, 64, 8, "128x64/8", "flash_fwd_d192_m128n64w8"};
constexpr Tile kD256Wide{128, 64, 8, "128x64/8", "flash_fwd_d256_m128n64w8"};
constexpr Tile kD256{64, 64, 4, "64x64/4", "flash_fwd_d256_m64n64w4"};

// Split-KV (flash_api.cpp set_params_splitkv, num_splits_heuristic; flash_fwd_launch_template.h
// run_mha_fwd_splitkv_dispatch and run_flash_splitkv_fwd).
constexpr std::int64_t kSplitBlockM = attention::kSplitKvBlockM;  // "Fixed for all head dimensions"
constexpr std::int64_t kSplitWarps = 4;                           // Flash_fwd_kernel_traits<d, 64, kBlockN, 4, ...>
constexpr int kMaxSplits = 128;                                   // TORCH_CHECK(params.num_splits <= 128, ...)
constexpr std::int64_t kSplitWavesPerSm = 2;                      // num_sm * 2: "128 threads per block"
constexpr float kSplitFillFraction = 0.8f;                        // enough blocks to fill 80 % of the SMs: one split
constexpr double kSplitEfficiencyFraction = 0.85;
constexpr std::int64_t kCombineThreads = attention::kSplitKvThreads;  // kNThreads of the split kernel's traits
constexpr std::int64_t kAccumBytes = 4;                               // out_accum / softmax_lse_accum are fp32
constexpr Tile kSplitD32{kSplitBlockM, 256, kSplitWarps, "64x256/4 split-KV", "flash_fwd_splitkv_d32_m64n256w4"};
constexpr Tile kSplitD64{kSplitBlockM, 256, kSplitWarps, "64x256/4 split-KV", "flash_fwd_splitkv_d64_m64n256w4"};
constexpr Tile kSplitD96{kSplitBlockM, 128, kSplitWarps, "64x128/4 split-KV", "flash_fwd_splitkv_d96_m64n128w4"};
constexpr Tile kSplitD128{kSplitBlockM, 128, kSplitWarps, "64x128/4 split-KV", "flash_fwd_splitkv_d128_m64n128w4"};
constexpr Tile kSplitD192{kSplitBlockM, 64, kSplitWarps, "64x64/4 split-KV", "flash_fwd_splitkv_d192_m64n64w4"};
constexpr Tile kSplitD256{kSplitBlockM, 64, kSplitWarps, "64x64/4 split-KV", "flash_fwd_splitkv_d256_m64n64w4"};
// combine kBlockM: 4 when the head dim is a multiple of 128, 8 for 64, else 16 (rows per CTA).
constexpr Tile kCombineM4{4, 0, kSplitWarps, "combine 4 rows", "flash_fwd_splitkv_combine_m4"};
constexpr Tile kCombineM8{8, 0, kSplitWarps, "combine 8 rows", "flash_fwd_splitkv_combine_m8"};
constexpr Tile kCombineM16{16, 0, kSplitWarps, "combine 16 rows", "flash_fwd_splitkv_combine_m16"};

// sglang kernels/ops/attention/fa4_sm120/flash_fwd.py: candidates in order, 4 warps each (ours).
constexpr std::int64_t kSm120Stages = 1;
constexpr std::int64_t kSm120ExtraBytes = 2048;
constexpr std::int64_t kSm120ShearBytesPerRow = 16;  // (256,256) tiles pad each Q row
constexpr std::int64_t kSm120HeadDimMultiple = 16;
constexpr std::int64_t kSm120SmallHeadDim = 64;  // (128,128) only when max(hd, hdv) <= 64
constexpr std::int64_t kSm120Warps = 4;
constexpr int kSm120Version = 120;  // the compute capability upstream's fa4_sm120 kernels target
constexpr Tile kSm120Regular[] = {{128, 128, kSm120Warps, "(128,128)", "flash_fwd_sm120_m128n128"},
                                  {128, 64, kSm120Warps, "(128,64)", "flash_fwd_sm120_m128n64"},
                                  {64, 64, kSm120Warps, "(64,64)", "flash_fwd_sm120_m64n64"}};
constexpr Tile kSm120Hdim256[] = {{64, 64, kSm120Warps, "(64,64)", "flash_fwd_sm120_m64n64_sheared"},
                                  {64, 48, kSm120Warps, "(64,48)", "flash_fwd_sm120_m64n48_sheared"},
                                  {48, 64, kSm120Warps, "(48,64)", "flash_fwd_sm120_m48n64_sheared"},
                                  {32, 64, kSm120Warps, "(32,64)", "flash_fwd_sm120_m32n64_sheared"}};

std::int64_t headDimBucket(std::int64_t d) {
    for (std::int64_t bucket : {32, 64, 96, 128, 192, 256})
        if (d <= bucket) return bucket;
    return kMaxHeadDim;
}

Tile fa2Tile(std::int64_t bucket, bool causal, const DeviceSpec& device) {
    const bool sm8x = device.computeCapability.major == 8 && device.computeCapability.minor > 0;
    switch (bucket) {
        case 32: return kD32;
        case 64: return kD64;
        case 96: return sm8x && causal ? kD96Sm8xCausal : kD96;
        case 128: return sm8x ? (causal ? kD128Sm8xCausal : kD128Sm8xNonCausal) : kD128;
        case 192: return kD192;
        default:
            return device.smemPerBlockOptin >= kHdim256WideTileMinOptin && device.smemPerSm < kHdim256WideTileMaxSmemPerSm ? kD256Wide
                                                                                                                           : kD256;
    }
}

Tile splitTile(std::int64_t bucket) {
    switch (bucket) {
        case 32: return kSplitD32;
        case 64: return kSplitD64;
        case 96: return kSplitD96;
        case 128: return kSplitD128;
        case 192: return kSplitD192;
        default: return kSplitD256;
    }
}

Tile combineTile(std::int64_t bucket) { return bucket % 128 == 0 ? kCombineM4 : (bucket % 64 == 0 ? kCombineM8 : kCombineM16); }

// The combine kernel's LSE table: kMaxSplits (the power of two >= splits, at least 2) x (kBlockM + 1) fp32.
std::int64_t combineSmem(std::int64_t splits, std::int64_t rows) {
    return attention::combineMaxSplits(static_cast<int>(splits)) * (rows + 1) * kAccumBytes;
}

std::int64_t fa2Smem(const Tile& tile, std::int64_t d) { return (tile.blockM + 2 * tile.blockN) * d * kElementBytes; }

std::int64_t sm120Smem(const Tile& tile, std::int64_t hd, std::int64_t hdv, bool sheared) {
    return tile.blockM * hd * kElementBytes + tile.blockN * hd * kSm120Stages * kElementBytes +
           tile.blockN * hdv * kSm120Stages * kElementBytes + kSm120ExtraBytes + (sheared ? kSm120ShearBytesPerRow * tile.blockM : 0);
}

void setTraffic(LaunchPlan& plan, const Shape& s, std::int64_t splits, std::int64_t headDimRounded) {
    using P = AttentionFamily::Parameter;
    const double b = static_cast<double>(s[P::Batch]), h = static_cast<double>(s[P::Heads]);
    const double sq = static_cast<double>(s[P::SeqlenQ]), sk = static_cast<double>(s[P::SeqlenK]);
    const double d = static_cast<double>(s[P::HeadDim]), dv = static_cast<double>(s[P::HeadDimV]);
    const double q = b * sq * h * d * kElementBytes;
    const double kv = b * sk * h * (d + dv) * kElementBytes;
    const double o = b * sq * h * dv * kElementBytes;
    const double lse = b * h * sq * 4.0;
    // Split-KV: out_accum [splits, b, h, sq, d_rounded] and softmax_lse_accum [splits, b, h, sq],
    // fp32, written by the split kernel and read back by the combine.
    const double accum =
        splits > 1 ? static_cast<double>(splits) * b * h * sq * (static_cast<double>(headDimRounded) + 1.0) * kAccumBytes : 0.0;
    plan.bytesMoved = q + kv + o + lse + 2.0 * accum;
    const double causalFactor = s[P::Causal] ? 0.5 : 1.0;
    plan.flops = 2.0 * b * h * sq * sk * (d + dv) * causalFactor;
    plan.deviceMemoryBytes = clampBytes(q + kv + o + lse + accum);
}

// The combine launch (run_flash_splitkv_fwd): grid ceil(b * h * seqlen_q / kBlockM), kNThreads
// threads, checked like a main launch; a refusal of the combine fails the whole call.
void addCombine(LaunchPlan& plan, const Shape& shape, const DeviceSpec& device, std::int64_t splits, std::int64_t bucket,
                PlanDetail detail) {
    using P = AttentionFamily::Parameter;
    const Tile combine = combineTile(bucket);
    LaunchPlan launch;
    launch.kernelSymbol = combine.symbol;
    launch.grid = {ceilDiv(shape[P::Batch] * shape[P::Heads] * shape[P::SeqlenQ], combine.blockM), 1, 1};
    launch.gridParameter = {P::Batch, -1, -1};
    launch.block = {kCombineThreads, 1, 1};
    launch.dynamicSmem = combineSmem(splits, combine.blockM);
    launch.optsIntoLargeSmem = launch.dynamicSmem > device.smemPerBlock;
    finishLaunch(launch, device, compiledKernelResources(), detail);
    if (!launch.ok()) {
        plan.verdict = launch.verdict;
        plan.message = std::move(launch.message);
        plan.limit = launch.limit;
        plan.cudaError = launch.cudaError;
        plan.failingParameter = launch.failingParameter;
        plan.occupancy.reset();
        return;
    }
    ExtraLaunch extra;
    extra.role = "combine";
    extra.why = "merges the splits' fp32 partial outputs and LSEs (out_accum, softmax_lse_accum) into O and its LSE";
    extra.kernelSymbol = combine.symbol;
    extra.grid = launch.grid;
    extra.block = launch.block;
    extra.dynamicSmem = launch.dynamicSmem;
    extra.optsIntoLargeSmem = launch.optsIntoLargeSmem;
    extra.registers = launch.registers;
    extra.occupancy = launch.occupancy;
    plan.extraLaunches.push_back(extra);
}

}  // namespace

namespace attention {

int numSplitsHeuristic(std::int64_t batchHeadsMBlocks, std::int64_t numSms, std::int64_t numNBlocks, int maxSplits) {
    // Same types as upstream (float efficiencies, a double threshold) so that ties fall the same way.
    // No work: upstream's efficiencies are 0/0 = NaN, nothing passes and it returns 1.
    if (batchHeadsMBlocks <= 0) return 1;
    if (static_cast<float>(batchHeadsMBlocks) >= kSplitFillFraction * static_cast<float>(numSms)) return 1;
    const int limit = static_cast<int>(std::min<std::int64_t>({maxSplits, numSms, numNBlocks}));
    auto eligible = [numNBlocks](std::int64_t s) { return s == 1 || ceilDiv(numNBlocks, s) != ceilDiv(numNBlocks, s - 1); };
    std::vector<float> efficiency;
    float best = 0.f;
    for (int s = 1; s <= limit; ++s) {
        float eff = 0.f;
        if (eligible(s)) {
            const float waves = static_cast<float>(batchHeadsMBlocks * s) / static_cast<float>(numSms);
            eff = waves / std::ceil(waves);
            best = std::max(best, eff);
        }
        efficiency.push_back(eff);
    }
    for (int s = 1; s <= limit; ++s)
        if (eligible(s) && efficiency[static_cast<std::size_t>(s - 1)] >= kSplitEfficiencyFraction * best) return s;
    return 1;
}

std::int64_t splitKvBlockN(std::int64_t headDim) { return headDim <= 64 ? 256 : (headDim <= 128 ? 128 : 64); }

std::int64_t headDimRounded(std::int64_t headDim) { return headDimBucket(headDim); }

}  // namespace attention

const std::vector<VariantInfo>& AttentionFamily::variants() const {
    static const std::vector<VariantInfo> list{
        {"fa2",
         "FlashAttention-2 forward: head_dim bucket -> (kBlockM x kBlockN / warps), grid (ceil(sq/kBlockM), batch, heads); "
         "more than one split: split-KV kernel, grid (ceil(sq/64), num_splits, batch*heads), then a combine kernel",
         "flash-attention v2.8.3 csrc/flash_attn/src/flash_fwd_launch_template.h, kernel_traits.h, flash_api.cpp",
         // head_dim_v moves with head_dim (the map ties them while the shape holds them equal), so the
         // map shows the head_dim rule (<= 256, multiples of 8) against batch's grid.y ceiling.
         {"head_dim", 0, 0, 0},
         {"batch", 0, 0, 0}},
        {"sm120_tile_search",
         "FA4-on-SM120 style tile search: the first (tile_m, tile_n) whose shared memory fits the opt-in limit",
         "sglang python/sglang/kernels/ops/attention/fa4_sm120/flash_fwd.py",
         {"head_dim", 0, 0, 0},
         {"head_dim_v", 0, 0, 0}},
        {"fa2_bwd",
         "FlashAttention-2 backward (mha_bwd): the release's head_dim x architecture x dropout rule (fa2_version), then "
         "v2.8.3's dq/dk/dv kernel per head_dim bucket and opt-in shared memory, grid (ceil(seqlen_k/kBlockN), batch, heads); "
         "no device code here",
         "flash-attention csrc/flash_attn/flash_api.cpp mha_bwd (v2.4.3, v2.5.5, v2.6.2, v2.7.3, v2.8.3); "
         "csrc/flash_attn/src/flash_bwd_launch_template.h and kernel_traits.h (v2.8.3)",
         {"head_dim", 0, 0, 0},
         {"fa2_version", 0, 0, 0}},
    };
    return list;
}

BackendRole AttentionFamily::backendRole(int variant) const {
    // sm120_tile_search is left out: upstream runs it on SM120 parts only, and its plan searches any device's capacity.
    return variant == Fa2 ? BackendRole::AttentionForward : (variant == Fa2Bwd ? BackendRole::AttentionBackward : BackendRole::None);
}

const ParameterList& AttentionFamily::parameters() const {
    static const ParameterList list{
        {"batch", "sequences in the batch (grid.y)", 0, 1 << 20, 1, AxisScale::Log2, false},
        {"seqlen_q", "query tokens per sequence", 0, 1 << 24, 2048, AxisScale::Log2, false},
        {"seqlen_k", "key/value tokens per sequence", 0, 1 << 24, 2048, AxisScale::Log2, false},
        {"heads", "attention heads (grid.z)", 0, 1 << 20, 32, AxisScale::Log2, false},
        {"head_dim", "query/key head dimension", 1, 1024, 128, AxisScale::Linear, false, kHeadDimMultiple},
        {"head_dim_v", "value head dimension (FA2 needs it equal to head_dim)", 1, 1024, 128, AxisScale::Linear, false, kHeadDimMultiple},
        {"causal", "1 for a causal mask", 0, 1, 0, AxisScale::Linear, true},
        {"num_splits",
         "fa2 split-KV splits: 0 = num_splits_heuristic on the device's SM count (mha_fwd), n = forced (as num_splits of "
         "flash_attn_with_kvcache)",
         0, 256, 0, AxisScale::Linear, false},
        {"dropout", "fa2_bwd: 1 when the forward used dropout (p_dropout > 0): backward rules differ", 0, 1, 0, AxisScale::Linear, true},
        {"fa2_version",
         "fa2_bwd: the flash-attn release whose backward rules apply, 2.x.y written 2xy: 243 (<= 2.5.4), 255 (2.5.5-2.6.1), "
         "262 (2.6.2-2.7.2; 270 reads the same), 273 or 283 (2.7.3 and later)",
         240, 289, 283, AxisScale::Linear, false},
    };
    return list;
}

std::vector<std::string_view> AttentionFamily::kernelSymbols() const {
    std::vector<std::string_view> symbols;
    for (const Tile& t : {kD32, kD64, kD96, kD96Sm8xCausal, kD128, kD128Sm8xNonCausal, kD128Sm8xCausal, kD192, kD256Wide, kD256})
        symbols.push_back(t.symbol);
    for (const Tile& t : {kSplitD32, kSplitD64, kSplitD96, kSplitD128, kSplitD192, kSplitD256, kCombineM4, kCombineM8, kCombineM16})
        symbols.push_back(t.symbol);
    for (const Tile& t : kSm120Regular) symbols.push_back(t.symbol);
    for (const Tile& t : kSm120Hdim256) symbols.push_back(t.symbol);
    return symbols;
}

LaunchPlan AttentionFamily::plan(int variant, const Shape& shape, const DeviceSpec& device, PlanDetail detail) const {
    LaunchPlan plan = startPlan(variant, shape, device, detail);
    if (variant == Fa2Bwd) return attention::planBackward(std::move(plan), shape, device, detail);
    const bool full = detail == PlanDetail::Full;
    const std::int64_t hd = shape[HeadDim], hdv = shape[HeadDimV];
    // mha_fwd: "causal=true is the same as causal=false" when seqlen_q == 1 (it picks the tile).
    const bool causal = shape[Causal] != 0 && shape[SeqlenQ] != 1;

    // Both variants use Ampere mma instructions.
    if (device.computeCapability.smVersion() < kMinSmVersion) {
        failPlan(plan, Verdict::UnsupportedDevice, {"compute_capability", kMinSmVersion, device.computeCapability.smVersion()}, -1, detail,
                 "FlashAttention only supports Ampere GPUs or newer.");
        if (full) plan.alternative = "run attention through PyTorch SDPA (math or memory-efficient backend) on this GPU";
        return plan;
    }

    std::optional<Tile> tile;
    std::int64_t smem = 0;
    std::int64_t splits = 1;
    std::int64_t bucket = 0;
    if (variant == Fa2) {
        if (hd > kMaxHeadDim) {
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim", kMaxHeadDim, hd}, HeadDim, detail,
                     "FlashAttention forward only supports head dimension at most 256");
            if (full) plan.alternative = "route head_dim > 256 to another backend (e.g. sm120_tile_search, or PyTorch SDPA)";
            return plan;
        }
        if (hd % kHeadDimMultiple != 0) {
            failPlan(plan, Verdict::UnsupportedShape, {"head_dim % 8", kHeadDimMultiple, hd}, HeadDim, detail,
                     "query, key, value, and out_ must have a head_size that is a multiple of 8");
            return plan;
        }
        if (hdv != hd) {  // Tilescope's own check: FA2's forward has one head size for Q, K and V.
            failPlan(
                plan, Verdict::UnsupportedShape, {"head_dim_v", hd, hdv}, HeadDimV, detail,
                full ? "FlashAttention-2 forward needs head_dim_v == head_dim (got " + str(hd) + " and " + str(hdv) + ")" : std::string());
            if (full) plan.alternative = "use sm120_tile_search, which takes different Q/K and V head dimensions";
            return plan;
        }
        bucket = headDimBucket(hd);
        const std::int64_t requested = shape[NumSplits];
        if (requested > kMaxSplits) {
            failPlan(plan, Verdict::UnsupportedShape, {"num_splits", kMaxSplits, requested}, NumSplits, detail,
                     "num_splits > 128 not supported");
            return plan;
        }
        const std::int64_t nBlocks = ceilDiv(shape[SeqlenK], attention::splitKvBlockN(hd));
        const std::int64_t work = shape[Batch] * shape[Heads] * ceilDiv(shape[SeqlenQ], kSplitBlockM);
        splits = requested >= 1 ? requested : attention::numSplitsHeuristic(work, kSplitWavesPerSm * device.smCount, nBlocks, kMaxSplits);
        if (full && (splits > 1 || requested >= 1))
            plan.note = "num_splits " + str(splits) +
                        (requested >= 1 ? " (forced)"
                                        : " from num_splits_heuristic(" + str(work) + ", 2 x " + str(device.smCount) + " SMs, " +
                                              str(nBlocks) + " K/V blocks, 128)") +
                        (splits > 1 ? ": split-KV kernel, then the combine kernel" : ": one kernel");
        const Tile chosen = splits > 1 ? splitTile(bucket) : fa2Tile(bucket, causal, device);
        tile = chosen;
        smem = fa2Smem(chosen, bucket);
        plan.tileIndex = 0;
        if (full) plan.candidates.push_back({chosen.name, smem, smem <= device.smemPerBlockOptin});
        if (full && splits > 1) {  // the one-split kernel this shape would take, for the Shared memory page
            const Tile single = fa2Tile(bucket, causal, device);
            const std::int64_t singleSmem = fa2Smem(single, bucket);
            plan.candidates.push_back({single.name, singleSmem, singleSmem <= device.smemPerBlockOptin});
        } else if (full && (bucket == 128 || bucket == 256)) {
            // The alternative tile of this bucket, for the Shared memory page.
            const Tile other = bucket == 256 ? (chosen.symbol == kD256.symbol ? kD256Wide : kD256) : kD128;
            if (other.symbol != chosen.symbol) {
                const std::int64_t otherSmem = fa2Smem(other, bucket);
                plan.candidates.push_back({other.name, otherSmem, otherSmem <= device.smemPerBlockOptin});
            }
        }
    } else {
        const std::int64_t hdr = roundUp(hd, kSm120HeadDimMultiple);
        const std::int64_t hdvr = roundUp(hdv, kSm120HeadDimMultiple);
        const bool hdim256 = hdr == 256 && hdvr == 256;
        const Tile* first = hdim256 ? std::begin(kSm120Hdim256) : std::begin(kSm120Regular);
        const Tile* last = hdim256 ? std::end(kSm120Hdim256) : std::end(kSm120Regular);
        if (!hdim256 && std::max(hdr, hdvr) > kSm120SmallHeadDim) ++first;  // (128,128) only for small heads
        std::int64_t smallest = 0;
        for (const Tile* t = first; t != last; ++t) {
            const std::int64_t bytes = sm120Smem(*t, hdr, hdvr, hdim256);
            const bool fits = bytes <= device.smemPerBlockOptin;
            smallest = t == first ? bytes : std::min(smallest, bytes);
            if (full) plan.candidates.push_back({t->name, bytes, fits});
            if (fits && !tile) {
                tile = *t;
                smem = bytes;
                plan.tileIndex = static_cast<int>(t - first);
                if (!full) break;
            }
        }
        if (!tile) {
            failPlan(plan, Verdict::NoTileFits, {"smem_per_block_optin", device.smemPerBlockOptin, smallest}, HeadDim, detail,
                     full ? "(head_dim, head_dim_v)=(" + str(hd) + ", " + str(hdv) + ") exceeds SM" +
                                str(device.computeCapability.smVersion()) + " shared-memory capacity (" + str(device.smemPerBlockOptin) +
                                " bytes)"
                          : std::string());
            if (full) plan.alternative = "route this head_dim to another backend, or use a GPU with a larger opt-in shared-memory limit";
            return plan;
        }
        // Say which rules applied (issue #15 item 6): the search's own head_dim rounding, and that the
        // capacity searched is this device's while upstream runs the kernel on SM120 parts only.
        if (full) {
            std::string note;
            if (hdr != hd || hdvr != hdv)
                note = "head dims rounded up to multiples of " + str(kSm120HeadDimMultiple) + " for the tiles: (" + str(hd) + ", " +
                       str(hdv) + ") -> (" + str(hdr) + ", " + str(hdvr) + ")";
            if (device.computeCapability.smVersion() != kSm120Version)
                note += std::string(note.empty() ? "" : "; ") + "upstream runs this search on SM120 only; here it uses " + device.id +
                        "'s opt-in shared memory (" + str(device.smemPerBlockOptin) + " bytes)";
            if (!note.empty()) plan.note = note;
        }
    }

    plan.tile = tile->name;
    plan.kernelSymbol = tile->symbol;
    plan.dynamicSmem = smem;
    plan.optsIntoLargeSmem = smem > device.smemPerBlock;
    plan.smemParameter = HeadDim;
    if (splits > 1) {
        // run_flash_splitkv_fwd: grid (m blocks, num_splits, b * h); then the combine kernel.
        plan.grid = {ceilDiv(shape[SeqlenQ], tile->blockM), splits, shape[Batch] * shape[Heads]};
        plan.gridParameter = {SeqlenQ, shape[NumSplits] >= 1 ? NumSplits : SeqlenK, Batch};
        plan.splitK = static_cast<int>(splits);
    } else {
        plan.grid = {ceilDiv(shape[SeqlenQ], tile->blockM), shape[Batch], shape[Heads]};
        plan.gridParameter = {SeqlenQ, Batch, Heads};
    }
    plan.block = {tile->warps * 32, 1, 1};
    const std::int64_t paddedQ = roundUp(shape[SeqlenQ], tile->blockM);
    plan.paddingWaste = paddedQ > 0 ? static_cast<double>(paddedQ - shape[SeqlenQ]) / static_cast<double>(paddedQ) : 0.0;
    setTraffic(plan, shape, splits, bucket);
    plan.memoryParameter = Batch;
    finishLaunch(plan, device, compiledKernelResources(), detail);
    if (splits > 1 && plan.ok()) addCombine(plan, shape, device, splits, bucket, detail);
    return plan;
}

}  // namespace tilescope
