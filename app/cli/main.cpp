// tilescope-cli: the command-line front-end. No Qt; also the GUI's GPU worker process.
#include <algorithm>
#include <optional>
#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "core/model/build_info.h"

namespace {

// Edits (insert, delete, substitute) between two short words, for "did you mean".
std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// CLI11 reports a missing and a misspelt command alike ("A subcommand is required"); say which,
// list the commands, and suggest the nearest one.
std::optional<std::string> commandProblem(CLI::App& app, int argc, char** argv) {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    std::string list;
    for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
    if (argc < 2) return "a command is required: " + list;
    const std::string wanted = argv[1];
    if (wanted.empty() || wanted[0] == '-' || std::find(names.begin(), names.end(), wanted) != names.end()) return std::nullopt;
    std::string message = "unknown command '" + wanted + "'";
    const auto nearest = std::min_element(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return editDistance(wanted, a) < editDistance(wanted, b);
    });
    if (nearest != names.end() && editDistance(wanted, *nearest) <= 2) message += "; did you mean '" + *nearest + "'?";
    return message + "\ncommands: " + list;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace tilescope::cli;
    CLI::App app{
        "Tilescope: launch plans, occupancy and failure boundaries of bundled GPU kernels, "
        "on any GPU in the database or a device file.\n"
        "Exit codes: 0 ok, 1 the shape (or model) fails, 2 usage or input error, 3 no GPU.",
        "tilescope-cli"};
    app.set_version_flag("--version", std::string(TILESCOPE_VERSION) + " (" + tilescope::gitRevision() + ")");
    app.require_subcommand(1, 1);
    app.fallthrough(false);

    int exitCode = kExitOk;
    addDevicesCommand(app, exitCode);
    addKernelsCommand(app, exitCode);
    addPlanCommand(app, exitCode);
    addSweepCommand(app, exitCode);
    addRunCommand(app, exitCode);
    addCalibrateCommand(app, exitCode);
    addDiagnoseCommand(app, exitCode);
    addCheckModelCommand(app, exitCode);
    addTraceCommand(app, exitCode);
    addImportKinetoCommand(app, exitCode);
    addCheckLaunchCommand(app, exitCode);

    if (const auto problem = commandProblem(app, argc, argv)) {
        std::cerr << "tilescope-cli: " << *problem << "\n(run 'tilescope-cli --help' for usage)\n";
        return kExitUsage;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return kExitOk;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All);
        return kExitOk;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << '\n';
        return kExitOk;
    } catch (const CLI::ParseError& e) {
        std::cerr << "tilescope-cli: " << e.what() << "\n(run 'tilescope-cli --help' for usage)\n";
        return kExitUsage;
    } catch (const UsageError& e) {
        std::cerr << "tilescope-cli: " << e.message << '\n';
        return kExitUsage;
    }
    return exitCode;
}
