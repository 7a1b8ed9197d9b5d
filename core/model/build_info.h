// The git revision the binaries were built from, for --version, About boxes, traces and reports.
#pragma once

namespace tilescope {

// `git describe --always --dirty --tags` at build time ("unknown" outside a git checkout). Defined
// in the one source the build regenerates when the revision changes (cmake/GitRevision.cmake), so a
// commit recompiles that file alone.
const char* gitRevision();

}  // namespace tilescope
