"""Tilescope from Python: launch plans, failure boundaries and diagnoses of GPU kernel shapes.

A thin front-end over the same core and kernel registry as ``tilescope-cli`` (DESIGN.md): every
function calls the C++ functions the CLI calls and returns its answer as Python values, whose
``to_dict()`` equals the CLI's ``--json`` output for the same call. Bad input raises ``ValueError``
with the CLI's message. ``preflight`` raises ``LaunchError`` before the first launch instead of
after the crash; ``from_profiler`` checks the kernels of a ``torch.profiler`` run.
"""

import copy
import json
import os
import tempfile

from . import _tilescope as _core

__version__ = _core.__version__
__all__ = [
    "devices", "kernels", "plan", "sweep", "diagnose", "check_model", "check_launch", "read_trace",
    "import_kineto", "preflight", "from_profiler", "LaunchError", "Record",
]


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Record:
    """One JSON object of the CLI as a value: its keys are attributes (``r.verdict``; a key that is a
    Python keyword with a trailing underscore: ``r.pass_``), nested objects are Records, and
    ``to_dict()`` gives the CLI's JSON back as plain dicts and lists."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        data = object.__getattribute__(self, "_data")
        if name not in data and name.endswith("_") and name[:-1] in data:
            name = name[:-1]
        try:
            return _wrap(data[name])
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}' (fields: {', '.join(data)})") from None

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __contains__(self, key):
        return key in self._data

    def __iter__(self):
        return iter(self._data)

    def keys(self):
        return self._data.keys()

    def __dir__(self):
        return list(self._data) + ["to_dict", "keys"]

    def __eq__(self, other):
        return isinstance(other, Record) and self._data == other._data

    def to_dict(self):
        """The CLI's ``--json`` output for the same call, as plain Python values (a copy)."""
        return copy.deepcopy(self._data)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._data.items() if not isinstance(v, (dict, list)))
        return f"{type(self).__name__}({fields})"


class LaunchError(ValueError):
    """A configuration that does not launch: the first failing layer (or kernel call), the limit it
    breaks, the shape, and the fix. ``check`` holds the whole result (a ModelCheck or a Plan)."""

    def __init__(self, failure, check):
        self.layer = failure["layer"]
        self.kernel = failure["kernel"]
        self.variant = failure["variant"]
        self.batch = failure["batch"]
        self.seq = failure["seq"]
        self.verdict = failure["verdict"]
        self.message = failure["message"]
        self.limit = failure["limit"]
        self.shape = failure["shape"]
        self.fix = failure["fix"]
        self.check = check
        where = f"{self.layer} ({self.kernel}/{self.variant})"
        if self.batch is not None:
            where += f" at batch {self.batch}, seq {self.seq}"
        text = f"{where}: {self.verdict}: {self.message}"
        if self.limit:
            text += f"; limit: {self.limit}"
        text += f"; shape: {self.shape}"
        if self.fix:
            text += f"; fix: {self.fix}"
        super().__init__(text)


def _text(value):
    # An option's text as the CLI would get it: None is "not given"; a list is not one value.
    if value is None:
        return ""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (str, int)):
        return str(value)
    raise TypeError(f"expected a string or an integer, got {type(value).__name__}: {value!r}")


def _shape_text(shape):
    # The CLI's -s NAME=VALUE,... (flags as 0/1); its parser gives the same errors.
    return ",".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in shape.items())


def _list_text(values):
    if isinstance(values, (int, str)):
        values = [values]
    return ",".join(str(v) for v in values)


def _axis_text(axis):
    # "M=1:4096:x2" as the CLI takes it, or (name, [values]) for NAME=V1,V2,...
    if axis is None or isinstance(axis, str):
        return _text(axis)
    name, values = axis
    return f"{name}={_list_text(values)}"


def devices(id=None):
    """``devices --json`` (every GPU of the database), or ``devices ID --json`` (every figure of one:
    a database id or a device .json file)."""
    return Record(json.loads(_core.devices(_text(id))))


def kernels(name=None):
    """``kernels --json``: the families, their variants and parameters (one family with ``name``)."""
    return Record(json.loads(_core.kernels(_text(name))))


def plan(kernel, variant=None, device=None, cuda=None, estimate=False, **shape):
    """``plan -k KERNEL [-v VARIANT] [-d DEVICE] [--cuda N] -s NAME=VALUE,... --json [--estimate]``.
    A shape that fails is an answer (its verdict), not an error."""
    return Record(json.loads(_core.plan(kernel, _text(variant), _text(device), _shape_text(shape), _text(cuda), bool(estimate))))


def sweep(kernel, x, y=None, variant=None, device=None, cuda=None, threads=1, **shape):
    """``sweep -k KERNEL --x AXIS [--y AXIS] ... --json`` (model mode). An axis is the CLI's text
    ("M=1:4096:x2", "head_dim=32:512:+16", "batch=1,7") or (name, [values])."""
    return Record(json.loads(_core.sweep(kernel, _text(variant), _text(device), _shape_text(shape), _text(cuda), _axis_text(x),
                                         _axis_text(y), int(threads))))


def diagnose(text, model=None):
    """``diagnose - --json`` with the log's text (str or bytes) as standard input; ``model``: the
    checkpoint's config.json (``--model``)."""
    return Record(json.loads(_core.diagnose(text, _text(model))))


def _config_source(config):
    # (path, text) for the core: a dict is the config's text, named as such in errors.
    if isinstance(config, dict):
        return "config.json (a Python dict)", json.dumps(config)
    return os.fspath(config), None


def _model_check(config, device, batch, seq, attention, stack=None):
    path, text = _config_source(config)
    result, failure = _core.check_model(path, text, _text(device), _list_text(batch), _list_text(seq), _text(attention),
                                        _text(stack))
    return Record(json.loads(result)), failure


def check_model(config, device=None, batch=(1, 8, 64), seq=None, attention=None, backends=False, devices=None, train=False,
                stack=None):
    """``check-model CONFIG -d DEVICE --batch B,... --seq S,... [--attention VARIANT] [--stack STACK] --json``.
    ``config``: a config.json, a checkpoint folder, or the config as a dict. ``devices``: a list of
    devices gives one result per device. ``seq`` defaults to 1 (decode), as the CLI's.
    ``backends=True``: ``check-model CONFIG --backends [--devices ...] [--train] --json``, the matrix of
    every attention backend and quantized GEMM by device (``devices`` or ``device``; none: one GPU of
    each generation); ``seq`` then defaults to a 2,048-token prompt, as the CLI's. ``stack``: the stack
    that runs a GEMM-packed AWQ checkpoint (``autoawq``, ``vllm`` or ``llm-awq``; ``--stack``)."""
    if backends:
        if stack is not None:
            raise ValueError("--stack applies to the model check, not to --backends")
        if device is not None and devices is not None:
            raise ValueError("--backends takes --devices (or one -d), not both")
        chosen = devices if devices is not None else device
        devices_text = chosen if isinstance(chosen, str) else _list_text(chosen) if chosen is not None else ""
        path, text = _config_source(config)
        return Record(json.loads(_core.check_model_backends(path, text, devices_text, _list_text(batch),
                                                            _list_text(seq if seq is not None else (2048,)), bool(train))))
    if train:
        raise ValueError("--devices and --train apply to --backends")
    seq = seq if seq is not None else (1,)
    if devices is not None and not isinstance(devices, str):
        return [check_model(config, d, batch, seq, attention, stack=stack) for d in devices]
    return _model_check(config, device if devices is None else devices, batch, seq, attention, stack)[0]


def _looks_like_path(value):
    if isinstance(value, os.PathLike):
        return True
    return isinstance(value, str) and "\n" not in value and os.path.exists(value)


def check_launch(path_or_text, format=None, block=None, grid=None, devices="all", cuda=None):
    """``check-launch INPUT --json``: every kernel of a ptxas log, an Nsight Compute CSV or a PyTorch
    profiler trace (a file) checked as a launch on every device. Text that is not a file's path
    (or bytes) is read as the CLI reads standard input."""
    if _looks_like_path(path_or_text):
        path, text = os.fspath(path_or_text), None
    else:
        path, text = "-", path_or_text
    devices_text = devices if isinstance(devices, str) else _list_text(devices)
    block_text = _list_text(block) if block is not None else ""
    grid_text = _list_text(grid) if grid is not None else ""
    return Record(json.loads(_core.check_launch(path, text, _text(format), block_text, grid_text, devices_text, _text(cuda))))


def read_trace(path, cliffs=False):
    """``trace summary FILE --json [--cliffs]``: a native trace or a PyTorch profiler trace."""
    return Record(json.loads(_core.trace_summary(os.fspath(path), bool(cliffs))))


def import_kineto(path, device=None):
    """``import-kineto FILE --json [-d DEVICE]``: each kernel of a profiler trace checked against its
    device's limits, with Kineto's occupancy recomputed."""
    return Record(json.loads(_core.import_kineto(os.fspath(path), _text(device))))


def _ladder(largest, name):
    # 1, 2, 4, ... below `largest`, then `largest`: the sizes a serving stack's batches pass through.
    largest = int(largest)
    if largest < 1:
        raise ValueError(f"{name}={largest}: it must be at least 1")
    values, v = [], 1
    while v < largest:
        values.append(v)
        v *= 2
    return values + [largest]


def preflight(config, device=None, max_batch=1, max_seq=1, backend=None, stack=None):
    """Refuse a configuration before its first launch: raises ``LaunchError`` naming the first
    failing layer, the limit, the shape and the fix; returns the check when everything launches.

    ``config`` is a model (a config.json, a checkpoint folder or a dict), checked as ``check-model``
    at the batches 1, 2, 4, ... up to ``max_batch`` and the sequence lengths 1, 2, 4, ... up to
    ``max_seq`` (``backend``: the attention variant, ``--attention``; ``stack``: ``--stack``). A shape that fails only between
    those points is not seen. ``config`` may instead be one kernel call, a dict with "kernel" (and
    "variant", the shape's parameters), planned at exactly that shape as ``plan`` does."""
    if isinstance(config, dict) and "kernel" in config:
        call = dict(config)
        kernel, variant, cuda = call.pop("kernel"), call.pop("variant", None), call.pop("cuda", None)
        result, failure = _core.plan_call(kernel, _text(variant), _text(device), _shape_text(call), _text(cuda))
        result = Record(json.loads(result))
        if failure is not None:
            raise LaunchError(failure, result)
        return result
    check, failure = _model_check(config, device, _ladder(max_batch, "max_batch"), _ladder(max_seq, "max_seq"), backend, stack)
    if failure is not None:
        raise LaunchError(failure, check)
    return check


def from_profiler(prof, format="kineto", **options):
    """Checks every kernel of a finished ``torch.profiler.profile`` run as ``check-launch`` does, from
    the Chrome trace it exports (``prof.export_chrome_trace``). Torch is not imported here: anything
    with that method works."""
    with tempfile.TemporaryDirectory(prefix="tilescope-") as folder:
        path = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(path)
        return check_launch(path, format=format, **options)
