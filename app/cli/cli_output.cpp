#include "app/cli/cli_output.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace tilescope::cli {

std::string formatBytes(double bytes) {
    static const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 6) {
        bytes /= 1024.0;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.2f %s", bytes, units[unit]);
    return buffer;
}

std::string formatDim(const Dim3& d) { return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")"; }

char verdictGlyph(Verdict verdict) {
    switch (verdict) {
        case Verdict::Ok: return '.';
        case Verdict::UnsupportedDevice: return 'D';
        case Verdict::UnsupportedShape: return 'S';
        case Verdict::BucketOverflow: return 'B';
        case Verdict::NoTileFits: return 'T';
        case Verdict::InvalidLaunch: return 'L';
        case Verdict::OutOfResources: return 'R';
        case Verdict::OutOfMemory: return 'M';
    }
    return '?';
}

void printTable(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        if (widths.size() < row.size()) widths.resize(row.size(), 0);
        for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t i = 0; i < row.size(); ++i) {
            line += row[i];
            if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
        }
        out << line << '\n';
    }
}

}  // namespace tilescope::cli
