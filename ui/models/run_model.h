// RunModel: one row per run of a trace (predicted or measured) and one per kernel record of an
// imported profiler trace. Records whose launch breaks a device limit, or whose profiler
// occupancy differs from cuda_occupancy.h's, are flagged (FlaggedRole, a tint and a tooltip).
// A measured run shows the GB/s and TFLOP/s it achieved and its % of the roofline, with the
// roofline's source (measured by GPU > Calibrate, or the datasheet); a predicted run "—".
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "core/series/performance_series.h"
#include "core/trace/record_flags.h"
#include "core/trace/trace.h"

namespace tilescope {

class RunModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Kind,
        Kernel,
        Variant,
        Shape,
        Device,
        Verdict,
        Grid,
        Block,
        Smem,
        Registers,
        Occupancy,
        Duration,
        Gbps,
        Tflops,
        PctOfRoofline,
        Roofline,
        Problem,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole + 1, FlaggedRole, RunIndexRole, RecordIndexRole };

    using QAbstractTableModel::QAbstractTableModel;

    // The trace must outlive the model's use of it (the window's TraceDocument owns it).
    void setTrace(const Trace* trace);
    // The measured rooflines that replace the datasheet for their GPU (and driver).
    void setCalibrations(std::vector<Calibration> calibrations);
    int flaggedCount() const;
    // For a row: the run's index (or -1 for a record), and the record's index (or -1 for a run).
    int runAt(int row) const;
    int recordAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant runData(const Run& run, int column, int role) const;
    QVariant figureData(std::size_t run, int column, int role) const;
    QVariant recordData(std::size_t index, int column, int role) const;

    const Trace* m_trace = nullptr;
    std::vector<RecordFlags> m_flags;
    std::vector<Calibration> m_calibrations;
    std::vector<std::optional<RunFigures>> m_figures;  // per run: achieved figures of a measured run
};

}  // namespace tilescope
