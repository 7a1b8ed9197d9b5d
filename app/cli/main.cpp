// tilescope-cli: the command-line front-end. No Qt; also the GUI's GPU worker process.
#include <iostream>

#include "app/cli/commands.h"

int main(int argc, char** argv) {
    using namespace tilescope::cli;
    CLI::App app{"Tilescope: launch plans, occupancy and failure boundaries of bundled GPU kernels, "
                 "on any GPU in the database or a device file.\n"
                 "Exit codes: 0 ok, 1 the shape (or model) fails, 2 usage or input error, 3 no GPU.",
                 "tilescope-cli"};
    app.set_version_flag("--version", std::string(TILESCOPE_VERSION) + " (" + TILESCOPE_GIT_REVISION + ")");
    app.require_subcommand(1, 1);
    app.fallthrough(false);

    int exitCode = kExitOk;
    addDevicesCommand(app, exitCode);
    addKernelsCommand(app, exitCode);
    addPlanCommand(app, exitCode);
    addSweepCommand(app, exitCode);
    addRunCommand(app, exitCode);
    addDiagnoseCommand(app, exitCode);
    addCheckModelCommand(app, exitCode);
    addTraceCommand(app, exitCode);
    addImportKinetoCommand(app, exitCode);

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
