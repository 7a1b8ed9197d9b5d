# devices, kernels, plan and sweep from Python against `tilescope-cli ... --json` on the golden cases
# of tests/cli (the KERNELS.md examples).
import pytest

import tilescope
from conftest import data, run_cli


def test_devices_equal_the_cli():
    assert tilescope.devices().to_dict() == run_cli("devices", "--json").json


@pytest.mark.parametrize("device", ["h100-sxm", "rtx-5090", data("device_valid.json")])
def test_one_device_equals_the_cli(device):
    result = tilescope.devices(device)
    assert result.to_dict() == run_cli("devices", device, "--json").json
    assert result.id == result.to_dict()["id"]


@pytest.mark.parametrize("device", ["rtx-9090", data("device_missing_field.json"), data("device_negative_value.json")])
def test_bad_device_raises_the_cli_message(device):
    with pytest.raises(ValueError) as raised:
        tilescope.devices(device)
    assert str(raised.value) == run_cli("devices", device, "--json").error


def test_kernels_equal_the_cli():
    assert tilescope.kernels().to_dict() == run_cli("kernels", "--json").json
    assert tilescope.kernels("gemm_bucket").to_dict() == run_cli("kernels", "gemm_bucket", "--json").json
    with pytest.raises(ValueError) as raised:
        tilescope.kernels("flash")
    assert str(raised.value) == run_cli("kernels", "flash", "--json").error


# (Python call, the CLI's arguments) for the same plan.
PLANS = [
    (dict(kernel="awq_gemm", variant="legacy_grid_y", M=32768, N=5376, cuda=12),
     ["-k", "awq_gemm", "-v", "legacy_grid_y", "-s", "M=32768,N=5376", "--cuda", "12"]),
    (dict(kernel="awq_gemm", variant="legacy_grid_y", M=32768, N=5376, cuda=13),
     ["-k", "awq_gemm", "-v", "legacy_grid_y", "-s", "M=32768,N=5376", "--cuda", "13"]),
    (dict(kernel="awq_gemm", M=32768, N=5376), ["-k", "awq_gemm", "-s", "M=32768,N=5376"]),
    (dict(kernel="gemm_bucket", M=640), ["-k", "gemm_bucket", "-s", "M=640"]),
    (dict(kernel="gemm_bucket", device="a100-80gb-sxm", M=32), ["-k", "gemm_bucket", "-d", "a100-80gb-sxm", "-s", "M=32"]),
    (dict(kernel="attention", variant="sm120_tile_search", device="rtx-5090", head_dim=512, head_dim_v=512),
     ["-k", "attention", "-v", "sm120_tile_search", "-d", "rtx-5090", "-s", "head_dim=512,head_dim_v=512"]),
    (dict(kernel="attention", device="h200", batch=1, seqlen_q=1, seqlen_k=32768, heads=32),
     ["-k", "attention", "-d", "h200", "-s", "batch=1,seqlen_q=1,seqlen_k=32768,heads=32"]),
    (dict(kernel="attention", device="t4"), ["-k", "attention", "-d", "t4"]),
    (dict(kernel="awq_gemv", variant="gemv", M=8), ["-k", "awq_gemv", "-v", "gemv", "-s", "M=8"]),
    (dict(kernel="gemm_bucket", device="h200", M=65, estimate=True), ["-k", "gemm_bucket", "-d", "h200", "-s", "M=65", "--estimate"]),
    (dict(kernel="custom", device="rtx-4090", cuda=12, block_x=256, registers=168, dynamic_smem=101376, smem_optin=True),
     ["-k", "custom", "-d", "rtx-4090", "--cuda", "12", "-s", "block_x=256,registers=168,dynamic_smem=101376,smem_optin=1"]),
]


@pytest.mark.parametrize("call,args", PLANS, ids=[" ".join(a) for _, a in PLANS])
def test_plan_equals_the_cli(call, args):
    result = tilescope.plan(**call)
    cli = run_cli("plan", *args, "--json")
    assert cli.rc in (0, 1)
    assert result.to_dict() == cli.json
    assert result.verdict == cli.json["verdict"]
    assert (result.verdict == "ok") == (cli.rc == 0)


BAD_PLANS = [
    (dict(kernel="awq_gemm", cuda=11), ["-k", "awq_gemm", "--cuda", "11"]),
    (dict(kernel="awq_gemm", M="abc"), ["-k", "awq_gemm", "-s", "M=abc"]),
    (dict(kernel="awq_gemm", Q=1), ["-k", "awq_gemm", "-s", "Q=1"]),
    (dict(kernel="awq_gemm", M=-1), ["-k", "awq_gemm", "-s", "M=-1"]),
    (dict(kernel="flash"), ["-k", "flash"]),
    (dict(kernel="awq_gemm", variant="fast"), ["-k", "awq_gemm", "-v", "fast"]),
    (dict(kernel="attention", device=data("device_absurd_value.json")), ["-k", "attention", "-d", data("device_absurd_value.json")]),
]


@pytest.mark.parametrize("call,args", BAD_PLANS, ids=[" ".join(a) for _, a in BAD_PLANS])
def test_bad_plan_raises_the_cli_message(call, args):
    with pytest.raises(ValueError) as raised:
        tilescope.plan(**call)
    assert str(raised.value) == run_cli("plan", *args, "--json").error


SWEEPS = [
    (dict(kernel="awq_gemm", variant="legacy_grid_y", N=5376, x="M=1:65536:x2", cuda=12),
     ["-k", "awq_gemm", "-v", "legacy_grid_y", "-s", "N=5376", "--x", "M=1:65536:x2", "--cuda", "12"]),
    (dict(kernel="attention", variant="sm120_tile_search", device="rtx-5090", x="head_dim=32:512:+32", y="head_dim_v=32:512:+32"),
     ["-k", "attention", "-v", "sm120_tile_search", "-d", "rtx-5090", "--x", "head_dim=32:512:+32", "--y", "head_dim_v=32:512:+32"]),
    (dict(kernel="attention", device="h200", seqlen_q=1, heads=32, x=("seqlen_k", [128, 256]), y=("batch", [1, 7])),
     ["-k", "attention", "-d", "h200", "-s", "seqlen_q=1,heads=32", "--x", "seqlen_k=128,256", "--y", "batch=1,7"]),
]


@pytest.mark.parametrize("call,args", SWEEPS, ids=[" ".join(a) for _, a in SWEEPS])
def test_sweep_equals_the_cli(call, args):
    assert tilescope.sweep(**call).to_dict() == run_cli("sweep", *args, "--json").json


def test_bad_sweep_raises_the_cli_message():
    for call, args in [(dict(kernel="gemm_bucket", x="M=1:8:x1"), ["-k", "gemm_bucket", "--x", "M=1:8:x1"]),
                       (dict(kernel="awq_gemm", x="M=1,2", y="M=1,2"), ["-k", "awq_gemm", "--x", "M=1,2", "--y", "M=1,2"])]:
        with pytest.raises(ValueError) as raised:
            tilescope.sweep(**call)
        assert str(raised.value) == run_cli("sweep", *args, "--json").error


def test_records_read_like_the_json():
    result = tilescope.plan("awq_gemm", "legacy_grid_y", M=32768, N=5376, cuda=12)
    assert result.limit.name == "max_grid_dim_y" and result.limit.actual == 86016
    assert result.launch.grid == [1, 86016, 8]
    assert result.shape.to_dict() == {"M": 32768, "N": 5376, "K": 4096, "group_size": 128}
    with pytest.raises(AttributeError):
        result.no_such_field
    # to_dict is a copy: changing it leaves the result as it was.
    result.to_dict()["verdict"] = "ok"
    assert result.verdict == "invalid_launch"


def test_wrong_types_raise_instead_of_crashing():
    with pytest.raises(TypeError):
        tilescope.plan(None)
    with pytest.raises(TypeError):
        tilescope.devices(["h100-sxm"])
