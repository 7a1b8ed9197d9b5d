// check-model --backends: which attention backends and quantized GEMMs take a checkpoint, device by
// device (core/series/backend_matrix.h plans it; this prints it).
#include <algorithm>
#include <iostream>

#include "app/cli/cli_output.h"
#include "app/cli/commands.h"
#include "app/frontend/frontend.h"
#include "core/diagnosis/model_check.h"
#include "core/model/device_spec.h"
#include "core/model/text_format.h"
#include "core/series/backend_matrix.h"
#include "kernels/builtin_kernels.h"

namespace tilescope::cli {

namespace {

std::string cellText(const BackendCell& cell) { return cell.ok() ? "ok" : std::string(verdictName(cell.verdict)); }

std::string firstFailureText(const BackendMatrix& m, const BackendCell& cell) {
    const bool oneSeq = m.options.seqs.size() == 1 && m.options.seqs.front() == 1;
    std::string where = "batch " + str(*cell.failBatch) + (oneSeq ? "" : ", seq " + str(*cell.failSeq));
    if (!cell.layer.empty()) where += ", " + cell.layer;
    return where;
}

void printMatrix(const ModelConfig& model, const BackendMatrix& m) {
    std::vector<std::vector<std::string>> header;
    header.push_back({"model", model.name + (model.architecture.empty() ? "" : " (" + model.architecture + ")") + ", " + model.path});
    header.push_back({"attention", "heads " + str(model.heads) + " (kv " + str(model.kvHeads) + "), head_dim " + str(model.headDim)});
    header.push_back(
        {"quantization", "AWQ " + str(model.bits) + "-bit, version \"" + model.version + "\", group_size " + str(model.groupSize)});
    std::string batches, seqs;
    for (auto b : m.options.batches) batches += (batches.empty() ? "" : ",") + str(b);
    for (auto s : m.options.seqs) seqs += (seqs.empty() ? "" : ",") + str(s);
    header.push_back(
        {"planned", "batch " + batches + " x seq " + seqs + (m.options.train ? ", training (backward rows, train=1)" : ", inference")});
    printTable(std::cout, header);
    std::cout << '\n';

    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"backend", "role"};
    for (const auto& d : m.devices) head.push_back(d);
    rows.push_back(head);
    for (const auto& row : m.rows) {
        std::vector<std::string> line{row.family + "/" + row.variant, std::string(backendRoleName(row.role))};
        for (const auto& cell : row.cells) line.push_back(cellText(cell));
        rows.push_back(line);
    }
    printTable(std::cout, rows);
    std::cout << "attention rows plan seqlen_q = seqlen_k = seq (decode: seqlen_q 1, seqlen_k seq), causal; quantized GEMM rows plan every "
                 "linear layer at M = batch x seq\n";

    // The rule of each failing cell; cells of one row that fail with the same text share an entry.
    bool any = false;
    for (const auto& row : m.rows) {
        std::vector<std::pair<std::string, std::vector<const BackendCell*>>> groups;
        for (const auto& cell : row.cells) {
            if (cell.ok()) continue;
            auto same = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == cell.rule; });
            if (same == groups.end()) groups.push_back({cell.rule, {&cell}});
            else same->second.push_back(&cell);
        }
        for (const auto& [rule, cells] : groups) {
            if (!any) std::cout << "\nwhy not (the first failing shape, the stack's own text):\n";
            any = true;
            std::string devices;
            for (const auto* c : cells) devices += (devices.empty() ? "" : ", ") + c->deviceId;
            std::string text = rule;
            std::replace(text.begin(), text.end(), '\n', ' ');
            std::cout << "  " << row.family << "/" << row.variant << " on " << devices << " (" << firstFailureText(m, *cells.front())
                      << "): " << verdictName(cells.front()->verdict) << ": " << text << '\n';
        }
    }
    std::cout << '\n';
    for (std::size_t d = 0; d < m.devices.size(); ++d) {
        std::size_t working = 0;
        for (const auto& row : m.rows) working += row.cells[d].ok() ? 1 : 0;
        if (m.missing[d].empty())
            std::cout << "PASS: " << m.devices[d] << ": " << working << " of " << m.rows.size() << " backends run every shape\n";
        else std::cout << "FAIL: " << m.devices[d] << ": no " << joinList(m.missing[d]) << " backend runs every shape\n";
    }
}

}  // namespace

int runBackendCheck(const std::string& configPath, const std::string& deviceList, const std::vector<std::int64_t>& batches,
                    const std::vector<std::int64_t>& seqs, bool train, bool json) {
    const frontend::BackendCheck check = frontend::backendCheck(configPath, std::nullopt, deviceList, batches, seqs, train);
    if (json) std::cout << backendMatrixToJson(check.matrix).dump(2) << '\n';
    else printMatrix(check.model, check.matrix);
    return check.matrix.everyDeviceServed() ? kExitOk : kExitFails;
}

}  // namespace tilescope::cli
