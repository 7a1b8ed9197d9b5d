# diagnose, check-model and preflight from Python against the CLI, on the logs and model configs the
# CLI goldens use (tests/cli/diagnose_tests.cmake, check_model_tests.cmake).
import json
import os

import pytest

import tilescope
from conftest import data, run_cli

LOGS = [data("logs", f"{name}.log") for name in ("awq_gemm_oc", "awq_gemv_batch", "awq_legacy_grid", "cascade", "fa2_headdim",
                                                  "fa4_sm120", "gemm_ar_bucket", "gemv_fast_batch", "smem_launch_sm89",
                                                  "too_many_resources")]
LOGS += [data("diagnose_issue13_mixtral_awq.log"), data("diagnose_no_signature.log"),
         data("diagnose_corpus", "llmawq7_large_input_invalid_config.log"),
         data("diagnose_corpus", "triton1561_tutorial_a100.log"),
         data("diagnose_corpus", "llamacpp16081_ptxas_static_smem.log")]


@pytest.mark.parametrize("log", LOGS)
def test_diagnose_equals_the_cli_on_standard_input(log):
    with open(log, "rb") as f:
        raw = f.read()
    cli = run_cli("diagnose", "-", "--json", stdin=raw)
    assert cli.rc in (0, 1)
    assert tilescope.diagnose(raw).to_dict() == cli.json
    assert tilescope.diagnose(raw.decode("utf-8")).to_dict() == cli.json


def test_diagnose_with_a_model_equals_the_cli():
    log = data("diagnose_corpus", "vllm16566_v0_worker_invalid_config.log")
    model = "resources/models/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json"
    with open(log, "rb") as f:
        raw = f.read()
    cli = run_cli("diagnose", "-", "--model", model, "--json", stdin=raw)
    assert tilescope.diagnose(raw, model=model).to_dict() == cli.json
    assert cli.json["findings"], "the golden case has findings"


@pytest.mark.parametrize("name", ["diagnose_empty.log", "diagnose_binary.bin"])
def test_diagnose_of_empty_or_binary_input_raises_the_cli_message(name):
    with open(data(name), "rb") as f:
        raw = f.read()
    with pytest.raises(ValueError) as raised:
        tilescope.diagnose(raw)
    assert str(raised.value) == run_cli("diagnose", "-", "--json", stdin=raw).error


MODELS = "resources/models"
CHECKS = [
    (dict(config=data("casperhansen__mistral-7b-instruct-awq-gemv"), device="rtx-5090", batch=[1, 8, 64]),
     [data("casperhansen__mistral-7b-instruct-awq-gemv"), "--device", "rtx-5090", "--batch", "1,8,64"]),
    (dict(config=f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", device="rtx-5090"),
     [f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", "--device", "rtx-5090", "--batch", "1,8,64"]),
    (dict(config=f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json", device="t4", batch=[1, 8], seq=[1, 2048]),
     [f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json", "-d", "t4", "--batch", "1,8", "--seq", "1,2048"]),
    (dict(config=f"{MODELS}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json", device="h100-sxm"),
     [f"{MODELS}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json", "-d", "h100-sxm"]),
    (dict(config=f"{MODELS}/Wfiles__awq_quantized__config.json", device="l4", batch=[1, 64], seq=[1, 512]),
     [f"{MODELS}/Wfiles__awq_quantized__config.json", "-d", "l4", "--batch", "1,64", "--seq", "1,512"]),
]


@pytest.mark.parametrize("call,args", CHECKS, ids=[" ".join(a) for _, a in CHECKS])
def test_check_model_equals_the_cli(call, args):
    cli = run_cli("check-model", *args, "--json")
    assert cli.rc in (0, 1)
    result = tilescope.check_model(**call)
    assert result.to_dict() == cli.json
    assert result.pass_ == (cli.rc == 0)


def test_check_model_of_a_dict_equals_the_cli_on_its_file():
    path = f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json"
    with open(path) as f:
        config = json.load(f)
    got = tilescope.check_model(config, device="rtx-5090", batch=8).to_dict()
    want = run_cli("check-model", path, "--device", "rtx-5090", "--batch", "8", "--json").json
    # The model's path (and, with no _name_or_path in the config, its name) says where it came from.
    for key in ("path", "name"):
        assert got["model"].pop(key) == "config.json (a Python dict)"
        want["model"].pop(key)
    assert got == want


def test_check_model_on_several_devices_gives_one_result_each():
    path = f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json"
    results = tilescope.check_model(path, devices=["t4", "h200"], batch=[1, 64])
    for device, result in zip(["t4", "h200"], results):
        assert result.to_dict() == run_cli("check-model", path, "-d", device, "--batch", "1,64", "--json").json


@pytest.mark.parametrize("call,args", [
    (dict(config=f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", batch=[8, 0]),
     [f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", "--batch", "8,0"]),
    (dict(config=data("check_model_contradictory")), [data("check_model_contradictory")]),
    (dict(config=f"{MODELS}/casperhansen__mistral-7b-instruct-awq-gemv__quant_config.json"),
     [f"{MODELS}/casperhansen__mistral-7b-instruct-awq-gemv__quant_config.json"]),
    (dict(config=data("no-such-model")), [data("no-such-model")]),
    (dict(config=f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", device="rtx-9090"),
     [f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", "-d", "rtx-9090"]),
])
def test_bad_check_model_raises_the_cli_message(call, args):
    with pytest.raises(ValueError) as raised:
        tilescope.check_model(**call)
    assert str(raised.value) == run_cli("check-model", *args, "--json").error


# check-model --backends, as its goldens run it (tests/cli/check_model_tests.cmake): the default GPUs and
# seq, and a list of devices with --train.
@pytest.mark.parametrize("call,args", [
    (dict(config=f"{MODELS}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json", batch=[1, 8, 64]),
     [f"{MODELS}/hugging-quants__gemma-2-9b-it-AWQ-INT4__config.json", "--batch", "1,8,64"]),
    (dict(config=f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", train=True,
          devices=["t4", "a10", "rtx-4090", "a100-80gb-sxm", "h100-sxm"], batch=[1, 8], seq=[512, 4096]),
     [f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json", "--train", "--devices",
      "t4,a10,rtx-4090,a100-80gb-sxm,h100-sxm", "--batch", "1,8", "--seq", "512,4096"]),
])
def test_check_model_backends_equals_the_cli(call, args):
    got = tilescope.check_model(backends=True, **call).to_dict()
    cli = run_cli("check-model", *args, "--backends", "--json")
    assert cli.rc in (0, 1)
    assert got == cli.json


def test_check_model_backends_of_a_dict_equals_the_file():
    path = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    with open(path) as f:
        config = json.load(f)
    want = tilescope.check_model(path, backends=True, device="h200").to_dict()
    assert tilescope.check_model(config, backends=True, device="h200").to_dict() == want


def test_check_model_backends_refuses_an_unknown_device_as_the_cli():
    path = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    with pytest.raises(ValueError) as raised:
        tilescope.check_model(path, backends=True, devices=["h200", "rtx-9090"])
    assert str(raised.value) == run_cli("check-model", path, "--backends", "--devices", "h200,rtx-9090", "--json").error


# preflight on the seeds (KERNELS.md): the GEMV-packed checkpoint at batch 8 and llm-awq's legacy grid at
# M = 32768, N = 5376; both pass on their fixes.
GEMV_MODEL = data("casperhansen__mistral-7b-instruct-awq-gemv")


def test_preflight_refuses_the_gemv_checkpoint_at_batch_8():
    with pytest.raises(tilescope.LaunchError) as raised:
        tilescope.preflight(GEMV_MODEL, device="rtx-5090", max_batch=8)
    error = raised.value
    assert isinstance(error, ValueError)
    check = tilescope.check_model(GEMV_MODEL, device="rtx-5090", batch=[1, 2, 4, 8]).to_dict()
    first = next(layer for layer in check["layers"] if layer["first_failure"])
    assert (error.layer, error.kernel, error.variant) == (first["name"], first["kernel"], first["variant"])
    assert (error.batch, error.seq) == (first["first_failure"]["batch"], 1)
    assert error.message == first["first_failure"]["message"] and error.fix == first["first_failure"]["fix"]
    assert error.batch == 2, "the GEMV kernel takes one activation row: batch 2 is the first that fails"
    assert f"M={error.batch}" in error.shape
    assert error.layer in str(error) and error.message in str(error)
    assert error.check.to_dict() == tilescope.check_model(GEMV_MODEL, device="rtx-5090", batch=[1, 2, 4, 8], seq=[1]).to_dict()


def test_preflight_passes_the_gemv_checkpoint_at_batch_1_and_the_gemm_checkpoint_at_batch_8():
    assert tilescope.preflight(GEMV_MODEL, device="rtx-5090", max_batch=1).pass_
    gemm = f"{MODELS}/TheBloke__Mistral-7B-Instruct-v0.1-AWQ__config.json"
    assert tilescope.preflight(gemm, device="rtx-5090", max_batch=8).pass_


def test_preflight_refuses_the_legacy_grid_at_m_32768():
    call = {"kernel": "awq_gemm", "variant": "legacy_grid_y", "M": 32768, "N": 5376, "cuda": 12}
    with pytest.raises(tilescope.LaunchError) as raised:
        tilescope.preflight(call)
    error = raised.value
    cli = run_cli("plan", "-k", "awq_gemm", "-v", "legacy_grid_y", "-s", "M=32768,N=5376", "--cuda", "12", "--json").json
    assert error.verdict == "invalid_launch" and error.message == cli["message"] and error.fix == cli["fix"]
    assert error.limit.startswith("max_grid_dim_y") and "86,016" in error.limit
    assert error.shape == "M=32768,N=5376,K=4096,group_size=128"
    assert error.check.to_dict() == cli


def test_preflight_passes_the_fixes_of_the_legacy_grid():
    # Upstream's fix (grid flattened into x: the default variant), and the nearest passing M the fix names.
    assert tilescope.preflight({"kernel": "awq_gemm", "M": 32768, "N": 5376}).verdict == "ok"
    assert tilescope.preflight({"kernel": "awq_gemm", "variant": "legacy_grid_y", "M": 24960, "N": 5376}).verdict == "ok"


def test_preflight_checks_sequence_lengths_too():
    gemma = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    cli = run_cli("check-model", gemma, "-d", "t4", "--batch", "1", "--seq", "1,2,4,8,16,32,64,128,256,512,1024,2048", "--json")
    if cli.rc == 0:
        assert tilescope.preflight(gemma, device="t4", max_seq=2048).pass_
    else:
        with pytest.raises(tilescope.LaunchError):
            tilescope.preflight(gemma, device="t4", max_seq=2048)


# --stack from Python: the Gemma AWQ checkpoint around vLLM's 256 tokens and AutoAWQ's M = 1024, as
# the CLI's check-model (golden check_model_gemma_h200_vllm); the stacks differ at M = 256.
@pytest.mark.parametrize("stack", ["vllm", "autoawq", "llm-awq"])
def test_check_model_stack_equals_the_cli(stack):
    path = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    cli = run_cli("check-model", path, "-d", "h200", "--batch", "1", "--seq", "255,256,1023,1024", "--stack", stack, "--json")
    assert tilescope.check_model(path, device="h200", batch=[1], seq=[255, 256, 1023, 1024], stack=stack).to_dict() == cli.json


def test_check_model_stacks_differ_where_vllm_dispatches():
    path = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    plans = {stack: tilescope.check_model(path, device="h200", batch=[1], seq=[256], stack=stack).to_dict()
             for stack in ("vllm", "llm-awq")}
    assert plans["vllm"] != plans["llm-awq"]


def test_check_model_refuses_an_unknown_stack_as_the_cli():
    path = f"{MODELS}/TechxGenus__gemma-1.1-2b-it-AWQ__config.json"
    with pytest.raises(ValueError) as raised:
        tilescope.check_model(path, stack="tgi")
    assert str(raised.value) == run_cli("check-model", path, "--stack", "tgi", "--json").error


def test_preflight_names_the_argument_it_refuses():
    with pytest.raises(ValueError) as raised:
        tilescope.preflight(GEMV_MODEL, device="rtx-5090", max_batch=0)
    assert str(raised.value).startswith("max_batch=0")
