// Human-readable text for the CLI: number formatting, aligned tables, verdict glyphs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/model/launch_plan.h"
#include "core/model/text_format.h"  // withThousands

namespace tilescope::cli {

std::string formatBytes(double bytes);   // "10.5 KB", "3.20 GB"
std::string formatDim(const Dim3& dim);  // "(1, 86016, 8)"
char verdictGlyph(Verdict verdict);      // one character per kind, for ASCII maps

// Prints rows as columns padded to the widest cell; the first row is the header.
void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows);

}  // namespace tilescope::cli
