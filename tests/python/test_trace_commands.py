# check-launch, import-kineto and trace summary from Python against the CLI, on the ptxas logs, Nsight
# Compute CSVs and real PyTorch profiler (Kineto) traces of tests/data; from_profiler on those traces.
import gzip
import shutil

import pytest

import tilescope
from conftest import data, run_cli

DEVICES = "t4,a100-80gb-sxm,rtx-4090,h100-sxm,h200,rtx-5090"
LAUNCHES = [
    (dict(path_or_text=data("ptxas", "awq_gemv_sm90.log"), devices=DEVICES, cuda=12),
     [data("ptxas", "awq_gemv_sm90.log"), "--devices", DEVICES, "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "attention_sm90.log"), block=128, grid=(16, 32, 4), devices=DEVICES, cuda=12),
     [data("ptxas", "attention_sm90.log"), "--block", "128", "--grid", "16,32,4", "--devices", DEVICES, "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "scale_templates_sm90.log"), block=256, devices=["rtx-4090", "h100-sxm"], cuda=12),
     [data("ptxas", "scale_templates_sm90.log"), "--block", "256", "--devices", "rtx-4090,h100-sxm", "--cuda", "12"]),
    (dict(path_or_text=data("ncu", "h200_gemm_bucket_bn256_details.csv"), devices=DEVICES, cuda=13),
     [data("ncu", "h200_gemm_bucket_bn256_details.csv"), "--devices", DEVICES, "--cuda", "13"]),
    (dict(path_or_text=data("ncu", "h200_awq_gemv_details.csv"), devices=DEVICES, cuda=12),
     [data("ncu", "h200_awq_gemv_details.csv"), "--devices", DEVICES, "--cuda", "12"]),
    (dict(path_or_text=data("hta_triton_example_a100.json.gz"), devices=DEVICES, cuda=12),
     [data("hta_triton_example_a100.json.gz"), "--devices", DEVICES, "--cuda", "12"]),
    (dict(path_or_text=data("tracelens_bert-small_h100.json.gz"), devices=DEVICES, cuda=12),
     [data("tracelens_bert-small_h100.json.gz"), "--devices", DEVICES, "--cuda", "12"]),
    (dict(path_or_text=data("hta_alexnet_a100.json.gz")), [data("hta_alexnet_a100.json.gz")]),
]


@pytest.mark.parametrize("call,args", LAUNCHES, ids=[a[0] for _, a in LAUNCHES])
def test_check_launch_equals_the_cli(call, args):
    cli = run_cli("check-launch", *args, "--json")
    assert cli.rc in (0, 1)
    result = tilescope.check_launch(**call)
    assert result.to_dict() == cli.json
    assert result.pass_ == (cli.rc == 0)


def test_check_launch_of_text_equals_the_cli_on_standard_input():
    with open(data("ptxas", "awq_gemv_sm90.log"), "rb") as f:
        raw = f.read()
    cli = run_cli("check-launch", "-", "--block", "32,4", "--grid", "1,2752", "--devices", "t4,h100-sxm", "--cuda", "12", "--json",
                  stdin=raw)
    assert cli.json["kernels"], "the log has kernels"
    for text in (raw, raw.decode("utf-8")):
        result = tilescope.check_launch(text, block=(32, 4), grid=(1, 2752), devices=["t4", "h100-sxm"], cuda=12)
        assert result.to_dict() == cli.json


@pytest.mark.parametrize("call,args", [
    (dict(path_or_text=data("ptxas", "README.md"), cuda=12), [data("ptxas", "README.md"), "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "awq_gemv_sm90.log"), block=(0, 1), cuda=12),
     [data("ptxas", "awq_gemv_sm90.log"), "--block", "0,1", "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "awq_gemv_sm90.log"), format="nvprof", cuda=12),
     [data("ptxas", "awq_gemv_sm90.log"), "--format", "nvprof", "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "awq_gemv_sm90.log"), format="ncu", cuda=12),
     [data("ptxas", "awq_gemv_sm90.log"), "--format", "ncu", "--cuda", "12"]),
    (dict(path_or_text=data("ptxas", "awq_gemv_sm90.log"), devices="rtx-9090"),
     [data("ptxas", "awq_gemv_sm90.log"), "--devices", "rtx-9090"]),
])
def test_bad_check_launch_raises_the_cli_message(call, args):
    with pytest.raises(ValueError) as raised:
        tilescope.check_launch(**call)
    assert str(raised.value) == run_cli("check-launch", *args, "--json").error


KINETO = ["hta_alexnet_a100.json.gz", "tracelens_bert-small_h100.json.gz", "hta_sampled_rank-0_no_deviceprops.json.gz",
          "hta_mi250_rocm_no_regs.json.gz", "hta_triton_example_a100.json.gz"]


@pytest.mark.parametrize("name", KINETO)
def test_import_kineto_equals_the_cli(name):
    assert tilescope.import_kineto(data(name)).to_dict() == run_cli("import-kineto", data(name), "--json").json


def test_import_kineto_with_an_assumed_device_equals_the_cli():
    path = data("hta_sampled_rank-0_no_deviceprops.json.gz")
    assert tilescope.import_kineto(path, device="a100-80gb-sxm").to_dict() == \
        run_cli("import-kineto", path, "-d", "a100-80gb-sxm", "--json").json


def test_import_kineto_of_a_bad_file_raises_the_cli_message():
    for path in (data("garbage.bin"), data("no-such-trace.json")):
        with pytest.raises(ValueError) as raised:
            tilescope.import_kineto(path)
        assert str(raised.value) == run_cli("import-kineto", path, "--json").error


@pytest.mark.parametrize("path,cliffs", [
    (data("trace_golden.tilescope.json"), False),
    ("resources/samples/hta_alexnet_a100.json.gz", False),
    (data("roofline", "h200_gemm_bucket_oproj_m.jsonl"), True),
    (data("roofline", "h200_awq_gemm_prefill_m.jsonl"), True),
])
def test_read_trace_equals_the_cli_summary(path, cliffs):
    args = ["trace", "summary", path, "--json"] + (["--cliffs"] if cliffs else [])
    assert tilescope.read_trace(path, cliffs=cliffs).to_dict() == run_cli(*args).json


def test_read_trace_of_a_bad_file_raises_the_cli_message():
    with pytest.raises(ValueError) as raised:
        tilescope.read_trace(data("garbage.bin"))
    assert str(raised.value) == run_cli("trace", "summary", data("garbage.bin"), "--json").error


class RecordedProfiler:
    """Stands in for a finished torch.profiler.profile: exports a real PyTorch profiler trace."""

    def __init__(self, gz_path):
        self.gz_path = gz_path
        self.exported = None

    def export_chrome_trace(self, path):
        with gzip.open(self.gz_path, "rb") as source, open(path, "wb") as target:
            shutil.copyfileobj(source, target)
        self.exported = path


@pytest.mark.parametrize("name", ["tracelens_bert-small_h100.json.gz", "hta_triton_example_a100.json.gz"])
def test_from_profiler_checks_the_exported_trace_as_check_launch(name, tmp_path):
    profiler = RecordedProfiler(data(name))
    got = tilescope.from_profiler(profiler, devices=DEVICES, cuda=12).to_dict()
    # The CLI on the same exported trace (the profiler writes plain JSON).
    exported = tmp_path / "trace.json"
    RecordedProfiler(data(name)).export_chrome_trace(str(exported))
    want = run_cli("check-launch", str(exported), "--devices", DEVICES, "--cuda", "12", "--json").json
    assert got.pop("input") == profiler.exported
    want.pop("input")
    assert got == want
    assert got["kernels"], "a real trace has kernels"


def test_from_profiler_with_torch():
    torch = pytest.importorskip("torch", reason="torch is optional; the tests above check from_profiler on real traces")
    if not torch.cuda.is_available():
        pytest.skip("torch without a CUDA GPU records no kernels to check")
    from torch.profiler import ProfilerActivity, profile
    a = torch.randn(1024, 1024, device="cuda")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        (a @ a).sum().item()
    result = tilescope.from_profiler(prof)
    assert result.kernels, "a matmul on the GPU records its kernels"


@pytest.mark.parametrize("name", ["garbage.bin", "diagnose_binary.bin"])
def test_check_launch_of_hostile_input_raises_the_cli_message(name):
    with open(data(name), "rb") as f:
        raw = f.read()
    with pytest.raises(ValueError) as raised:
        tilescope.check_launch(data(name))
    assert str(raised.value) == run_cli("check-launch", data(name), "--json").error
    with pytest.raises(ValueError) as raised:
        tilescope.check_launch(raw)
    assert str(raised.value) == run_cli("check-launch", "-", "--json", stdin=raw).error
