#include "core/model/verdict.h"

namespace tilescope {

std::string_view verdictName(Verdict verdict) {
    switch (verdict) {
        case Verdict::UnsupportedDevice: return "unsupported_device";
        case Verdict::UnsupportedShape: return "unsupported_shape";
        case Verdict::BucketOverflow: return "bucket_overflow";
        case Verdict::NoTileFits: return "no_tile_fits";
        case Verdict::InvalidLaunch: return "invalid_launch";
        case Verdict::OutOfResources: return "out_of_resources";
        case Verdict::OutOfMemory: return "out_of_memory";
        case Verdict::Ok: return "ok";
    }
    return "unknown";
}

std::optional<Verdict> verdictFromName(std::string_view name) {
    for (Verdict v : kAllVerdicts)
        if (verdictName(v) == name) return v;
    return std::nullopt;
}

std::string_view verdictDescription(Verdict verdict) {
    switch (verdict) {
        case Verdict::UnsupportedDevice: return "the stack refuses this GPU architecture before launching";
        case Verdict::UnsupportedShape: return "a shape check or assertion rejects the call";
        case Verdict::BucketOverflow: return "M falls outside every bucket";
        case Verdict::NoTileFits: return "no tile candidate fits in shared memory";
        case Verdict::InvalidLaunch: return "the CUDA runtime rejects the grid, block or shared memory";
        case Verdict::OutOfResources: return "registers x threads exceed the block's register file";
        case Verdict::OutOfMemory: return "the buffers do not fit in device memory";
        case Verdict::Ok: return "it launches";
    }
    return "";
}

}  // namespace tilescope
