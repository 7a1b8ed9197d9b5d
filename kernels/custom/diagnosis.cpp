// What `diagnose` asks of the custom family: the command that replays a launch a log gives only
// the shared memory of (ptxas' static cap, the CuTe DSL's and Triton's opt-in checks).
#include <string>

#include "core/diagnosis/diagnosis_signatures.h"
#include "kernels/custom/plan.h"

namespace tilescope {

namespace {

// `tilescope-cli plan -k custom ...` for a launch the text gives only shared memory of: the custom
// family's other figures keep their defaults. `device` may be empty (the database default).
std::string customSharedMemoryCommand(std::string_view parameter, std::int64_t bytes, bool optIn, std::string_view device) {
    return "tilescope-cli plan -k custom" + (device.empty() ? std::string() : " -d " + std::string(device)) + " -s " +
           std::string(parameter) + "=" + std::to_string(bytes) + (optIn ? ",smem_optin=1" : "");
}

}  // namespace

const DiagnosisSignatures* CustomFamily::diagnosisSignatures() const {
    static const DiagnosisSignatures contributed = [] {
        DiagnosisSignatures d;
        d.bareLaunchCommand = customSharedMemoryCommand;
        return d;
    }();
    return &contributed;
}

}  // namespace tilescope
