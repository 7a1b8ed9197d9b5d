// The text model the diagnosis reads: a log cleaned of colour codes and line-ending noise, the
// figures it gives near a line (M=, tokens=, head_dim=, ...). The GPUs it names: device_names.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/device_spec.h"
#include "core/model/result.h"

namespace tilescope {

// Figures a log gives around an error, each found by a few spellings ("tokens=", "#new-token:").
enum class LogFigure {
    M,
    Tokens,
    N,
    K,
    GroupSize,
    Batch,
    Seq,
    HeadDim,
    HeadDimV,
    Heads,
    Threads,
    Registers,
};

class LogText {
public:
    // Errors: empty (or whitespace-only) text, binary data.
    static Result<LogText> parse(std::string_view raw);
    // parse()'s checks alone, in one pass over the bytes (before a long log is read in the background).
    static Result<void> check(std::string_view raw);

    int lineCount() const { return static_cast<int>(m_lines.size()); }
    // Line `index` (0-based) without ANSI colour codes, carriage returns or trailing blanks.
    const std::string& line(int index) const { return m_lines[static_cast<std::size_t>(index)]; }
    const std::string& lowerLine(int index) const { return m_lower[static_cast<std::size_t>(index)]; }  // ASCII lowercase
    // The line without a leading log prefix ("[rank0]: ", "(VllmWorker pid=12) ", timestamps).
    std::string_view withoutPrefix(int index) const;
    // A Python traceback's source line (the line after `File "...", line N`): it quotes code, not an error.
    bool isTracebackSource(int index) const;

    // The nearest value of `figure` on line `index` or up to `window` lines before it.
    std::optional<std::int64_t> figure(LogFigure figure, int index, int window) const;
    // The same, with where it was read: the line (0-based) and the matched text.
    struct FigureHit {
        std::int64_t value = 0;
        int line = 0;
        std::string text;
    };
    std::optional<FigureHit> figureHit(LogFigure figure, int index, int window) const;
    // The first line in [index - before, index + after], nearest first, that contains every one
    // of `words` (lowercase); -1 when none.
    int nearestLineWith(std::span<const std::string_view> words, int index, int before, int after) const;
    int nearestLineWith(std::initializer_list<std::string_view> words, int index, int before, int after) const {
        return nearestLineWith(std::span<const std::string_view>(words.begin(), words.size()), index, before, after);
    }

private:
    std::vector<std::string> m_lines;
    std::vector<std::string> m_lower;  // lowercase copies for keyword search
};

std::string archNameOf(ComputeCapability cc);  // "sm_89"

// The CUDA runtime (12 or 13) whose grid/block launch rejection a log line quotes, 0 when it quotes
// none: "invalid configuration argument" is 12's, "invalid argument" 13's (core/model/launch_checks.h).
int cudaRuntimeOfLaunchError(std::string_view logText);
std::string lowercaseAscii(std::string_view text);

}  // namespace tilescope
