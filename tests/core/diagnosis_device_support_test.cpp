// diagnose on a GPU its software does not support (issue 32's device half of commit 68f7c54): vLLM's
// quantization capability check for methods of no bundled family, and "no kernel image is available
// for execution on the device" in the forms real reports print it, with PyTorch's warning that names
// the GPU's architecture and the build's. Every string is copied from the report its test cites.
#include <gtest/gtest.h>

#include "core/diagnosis/diagnosis.h"
#include "core/diagnosis/diagnosis_stacks.h"
#include "core/model/device_spec.h"
#include "kernels/builtin_kernels.h"

namespace tilescope {
namespace {

DiagnosisFinding only(const std::string& text) {
    auto d = diagnoseText(text, builtinKernels(), DeviceDatabase::embedded());
    EXPECT_TRUE(d.ok());
    EXPECT_EQ(d->findings.size(), 1u) << text;
    return d->findings.empty() ? DiagnosisFinding{} : d->findings.front();
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// vllm-project/vllm#14154, the error as its title gives it: bitsandbytes is not AWQ, and no database GPU
// is cc 5.2 (Maxwell): the finding says the method and both capabilities, names no kernel, implies and
// plans nothing.
TEST(DiagnosisDeviceSupport, Vllm14154_BitsandbytesOnCapability52IsNotAwq) {
    const auto f = only(
        "ValueError: The quantization method bitsandbytes is not supported for the current GPU. Minimum capability: 70. Current "
        "capability: 52.\n");
    EXPECT_EQ(f.signature, "vllm.quantization_capability");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_TRUE(f.family.empty()) << f.family;
    EXPECT_EQ(f.arch, "sm_52");
    EXPECT_TRUE(f.impliedDevices.empty());
    EXPECT_FALSE(f.plan);
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->limit, 70);
    EXPECT_EQ(f.limit->actual, 52);
    EXPECT_TRUE(contains(f.title, "bitsandbytes")) << f.title;
    EXPECT_TRUE(contains(f.explanation, "Tilescope bundles no bitsandbytes kernel")) << f.explanation;
    EXPECT_FALSE(contains(f.title + f.explanation + f.fix, "AWQ")) << f.title << " / " << f.explanation << " / " << f.fix;
    EXPECT_TRUE(contains(f.fix, "compute capability 7.0 or newer")) << f.fix;
    EXPECT_EQ(f.command, "tilescope-cli devices");
}

// vllm-project/vllm#4327, the error as its title gives it (no final full stop): fp8 on a cc 8.6 GPU implies
// every database GPU of 8.6, and the command shows the first.
TEST(DiagnosisDeviceSupport, Vllm4327_Fp8OnCapability86ImpliesTheGpusOfIt) {
    const auto f = only(
        "ValueError: The quantization method fp8 is not supported for the current GPU. Minimum capability: 90. Current capability: "
        "86\n");
    EXPECT_EQ(f.signature, "vllm.quantization_capability");
    EXPECT_TRUE(f.family.empty());
    EXPECT_EQ(f.arch, "sm_86");
    ASSERT_FALSE(f.impliedDevices.empty());
    for (const auto& id : f.impliedDevices)
        EXPECT_EQ(DeviceDatabase::embedded().find(id)->computeCapability, (ComputeCapability{8, 6})) << id;
    EXPECT_TRUE(contains(f.impliedBy, "Current capability: 86")) << f.impliedBy;
    EXPECT_EQ(f.command, "tilescope-cli devices " + f.impliedDevices.front());
    EXPECT_TRUE(contains(f.fix, "compute capability 9.0 or newer")) << f.fix;
}

// PyTorch's warning in open-edge-platform/anomalib#2953: the GPU's architecture and the build's list, read
// apart (the list's first entry, sm_70, is no GPU of the log).
TEST(DiagnosisDeviceSupport, Anomalib2953_TorchWarningNamesTheGpuAndTheBuild) {
    const auto log = LogText::parse(
        "/home/sasikarank/test/env/lib/python3.10/site-packages/torch/cuda/__init__.py:326: UserWarning: \n"
        "NVIDIA TITAN Xp with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.\n"
        "If you want to use the NVIDIA TITAN Xp GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/\n");
    ASSERT_TRUE(log.ok());
    const auto warning = findBuildArchWarning(*log);
    ASSERT_TRUE(warning);
    EXPECT_EQ(warning->line, 1);
    EXPECT_EQ(warning->device, "NVIDIA TITAN Xp");
    EXPECT_EQ(warning->cc, (ComputeCapability{6, 1}));
    EXPECT_EQ(warning->listLine, 2);
    EXPECT_EQ(warning->archs, (std::vector<std::string>{"sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"}));
    const auto mentions = findDeviceMentions(*log, DeviceDatabase::embedded());
    for (const auto& m : mentions) EXPECT_NE(m.line, 2) << "the build's list is no device: " << m.text;
}

// The whole anomalib#2953 log: a Pascal GPU under a build whose oldest architecture is sm_70.
TEST(DiagnosisDeviceSupport, Anomalib2953_TitanXpIsOlderThanTheBuild) {
    auto d = diagnoseText(
        "/home/sasikarank/test/env/lib/python3.10/site-packages/torch/cuda/__init__.py:326: UserWarning: \n"
        "NVIDIA TITAN Xp with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.\n"
        "If you want to use the NVIDIA TITAN Xp GPU with PyTorch, please check the instructions at "
        "https://pytorch.org/get-started/locally/\n"
        "\n"
        "  warnings.warn(\n"
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n",
        builtinKernels(), DeviceDatabase::embedded());
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d->findings.size(), 1u);
    const DiagnosisFinding& f = d->findings.front();
    EXPECT_EQ(f.signature, "cuda.no_kernel_image");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.arch, "sm_61");
    EXPECT_TRUE(f.family.empty());
    EXPECT_TRUE(contains(f.explanation, "NVIDIA TITAN Xp is sm_61")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "holds sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 (line 3)")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "older than every architecture")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "still includes sm_61")) << f.fix;
    EXPECT_TRUE(contains(f.fix, "TORCH_CUDA_ARCH_LIST=6.1")) << f.fix;
    EXPECT_TRUE(contains(f.fix, "a GPU of sm_70 or newer")) << f.fix;
}

// sconlyshootery/FeatDepth#68: an RTX 3060 Laptop GPU (sm_86) under a build of sm_37 ... sm_70.
TEST(DiagnosisDeviceSupport, FeatDepth68_GpuNewerThanTheBuild) {
    auto d = diagnoseText(
        "UserWarning: \n"
        "NVIDIA GeForce RTX 3060 Laptop GPU with CUDA capability sm_86 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n",
        builtinKernels(), DeviceDatabase::embedded());
    ASSERT_TRUE(d.ok());
    ASSERT_EQ(d->findings.size(), 1u);
    const DiagnosisFinding& f = d->findings.front();
    EXPECT_EQ(f.arch, "sm_86");
    EXPECT_TRUE(contains(f.explanation, "newer than every architecture")) << f.explanation;
    EXPECT_FALSE(contains(f.explanation, "CUDA 13 compiles nothing older")) << "sm_86 is not below sm_75";
    EXPECT_TRUE(contains(f.fix, "a newer CUDA that includes sm_86")) << f.fix;
    EXPECT_TRUE(contains(f.fix, "(sm_37 to sm_70)")) << f.fix;
}

// ContinuumIO/numbapro-examples#2: the driver API's name, as numba prints it.
TEST(DiagnosisDeviceSupport, NumbaproExamples2_DriverApiNoBinaryForGpu) {
    const auto f = only(
        "  File \"C:\\aroot\\stage\\Lib\\site-packages\\numbapro\\cudapipeline\\driver.py\", line 522, in check_error\n"
        "\n"
        "numbapro.cudapipeline.error.CudaDriverError: ('Failed to load module', 'CUDA_ERROR_NO_BINARY_FOR_GPU')\n");
    EXPECT_EQ(f.signature, "cuda.no_kernel_image");
    EXPECT_EQ(f.message, "CUDA_ERROR_NO_BINARY_FOR_GPU");
    EXPECT_TRUE(contains(f.explanation, "CUDA_ERROR_NO_BINARY_FOR_GPU: ")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "PTX JIT itself fails")) << f.explanation;
    EXPECT_TRUE(f.arch.empty());
}

// pytorch/pytorch#10094 (PyTorch 0.4.1 on Windows): THCudaCheck's form, error=48 (the number before CUDA
// 10.1 renumbered cudaErrorNoKernelImageForDevice 209).
TEST(DiagnosisDeviceSupport, Pytorch10094_ThCudaCheckError48) {
    const auto f = only(
        "THCudaCheck FAIL file=c:\\programdata\\miniconda3\\conda-bld\\pytorch_1532505617613\\work\\aten\\src\\thc\\generic/"
        "THCTensorMathPairwise.cu line=102 error=48 : no kernel image is available for execution on the device\n"
        "Traceback (most recent call last):\n"
        "  File \"classification.py\", line 173, in <module>\n"
        "    logits = model(X, edges)\n");
    EXPECT_EQ(f.signature, "cuda.no_kernel_image");
    EXPECT_EQ(f.line, 1);
    EXPECT_EQ(f.message, "no kernel image is available for execution on the device");
}

// bytedance/Protenix#205: its title, then its traceback's last lines. PyTorch's hint line after the error
// names the enum; it is the same error, not a second one.
TEST(DiagnosisDeviceSupport, Protenix205_TheHintLineIsNoSecondError) {
    const auto f = only(
        "5090 cuda Compatibility issues\n"
        "  File \"/home/adsb/conda/envs/ptxmm/lib/python3.10/site-packages/torch/nn/modules/linear.py\", line 134, in forward\n"
        "    return F.linear(input, self.weight, self.bias)\n"
        "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
        "Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for "
        "more information.\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n");
    EXPECT_EQ(f.line, 4);
    EXPECT_EQ(f.deviceId, "rtx-5090");
    EXPECT_EQ(f.arch, "sm_120");
}

// Phyronnaz/HashDAG#2: the error at the program's own check, the capability in the reporter's next sentence.
TEST(DiagnosisDeviceSupport, HashDag2_OwnCheckOnCapability50) {
    const auto f = only(
        "Starting...\n"
        "ERROR /data/transfer/HashDAG/src/dag_tracer.cu:135: cuda error \"no kernel image is available for execution on the device\"\n"
        "This because my hardware only supports CUDA compute capability 5.0.\n");
    EXPECT_EQ(f.signature, "cuda.no_kernel_image");
    EXPECT_EQ(f.arch, "sm_50");
    EXPECT_EQ(f.failingKernel, "/data/transfer/HashDAG/src/dag_tracer.cu:135");
    EXPECT_TRUE(contains(f.explanation, "no CUDA 13 build runs on sm_50")) << f.explanation;
}

// ---- vLLM's compressed-tensors refusal, printed as a Python tuple ----------------------------------

// vllm-project/vllm#14040: the comment's vLLM warning that names the GPU, then the error as the report's
// title gives it ("[Bug]: " dropped). The scheme's minimum, 80, is the log's: no bundled kernel is planned.
TEST(DiagnosisDeviceSupport, Vllm14040_CompressedTensorsMin80_Rtx2080Ti) {
    const auto f = only(
        "(APIServer pid=481) WARNING 09-16 17:46:10 [__init__.py:2716] Your device 'NVIDIA GeForce RTX 2080 Ti' (with compute "
        "capability 7.5) doesn't support torch.bfloat16. Falling back to torch.float16 for compatibility.\n"
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: "
        "75.')\n");
    EXPECT_EQ(f.signature, "vllm.compressed_tensors_capability");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.line, 2);
    EXPECT_TRUE(f.family.empty()) << f.family;
    EXPECT_FALSE(f.plan);
    EXPECT_EQ(f.deviceId, "rtx-2080-ti");
    EXPECT_EQ(f.arch, "sm_75");
    ASSERT_TRUE(f.limit);
    EXPECT_EQ(f.limit->limit, 80);
    EXPECT_EQ(f.limit->actual, 75);
    EXPECT_TRUE(contains(f.title, "compressed-tensors")) << f.title;
    EXPECT_TRUE(contains(f.explanation, "Marlin")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "compute capability 8.0 or newer")) << f.fix;
}

// vllm-project/vllm#25022, its description: AWQ weights in compressed-tensors form. The finding says that
// vLLM does not run them through the AWQ GEMM the awq_gemm family models, and plans nothing.
TEST(DiagnosisDeviceSupport, Vllm25022_AwqThroughCompressedTensorsIsNotAwqGemm) {
    const auto f = only(
        "Request support for AWQ quantization on GPUs with CUDA Compute Capability < 8.0 using Compressed Tensors Quantization.\n"
        "\n"
        "RuntimeError: ('Quantization scheme is not supported for ', 'the current GPU. Min capability: 80. ', 'Current capability: "
        "75.')\n");
    EXPECT_EQ(f.signature, "vllm.compressed_tensors_capability");
    EXPECT_TRUE(f.family.empty()) << f.family;
    EXPECT_FALSE(f.plan);
    EXPECT_EQ(f.arch, "sm_75");
    ASSERT_FALSE(f.impliedDevices.empty());
    for (const auto& id : f.impliedDevices)
        EXPECT_EQ(DeviceDatabase::embedded().find(id)->computeCapability, (ComputeCapability{7, 5})) << id;
    EXPECT_TRUE(contains(f.explanation, "The log names AWQ (line 1)")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "not run it through its AWQ GEMM")) << f.explanation;
    EXPECT_EQ(f.command, "tilescope-cli devices " + f.impliedDevices.front());
}

// ---- PyTorch's warning that its build supports no capability this old ------------------------------

// Kaggle/docker-python#1546: the range form, wrapped over two lines, read into the GPU and the build's range.
TEST(DiagnosisDeviceSupport, Kaggle1546_OldGpuWarningRangeForm) {
    const auto log = LogText::parse(
        "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:435: UserWarning: \n"
        "    Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0.\n"
        "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
        "    (7.0) - (12.0)\n"
        "    \n"
        "  queued_call()\n");
    ASSERT_TRUE(log.ok());
    const auto warning = findOldGpuWarning(*log);
    ASSERT_TRUE(warning);
    EXPECT_EQ(warning->line, 1);
    EXPECT_EQ(warning->gpuIndex, 0);
    EXPECT_EQ(warning->device, "Tesla P100-PCIE-16GB");
    EXPECT_EQ(warning->cc, (ComputeCapability{6, 0}));
    EXPECT_EQ(warning->rangeLine, 2);
    EXPECT_EQ(warning->minimum, (ComputeCapability{7, 0}));
    EXPECT_EQ(warning->maximum, (ComputeCapability{12, 0}));
}

// rupeshs/diffusionmagic#12, the warning alone (inline backticks dropped): a prediction of "no kernel image".
TEST(DiagnosisDeviceSupport, Diffusionmagic12_WarningAloneForetellsNoKernelImage) {
    const auto f = only(
        "    Found GPU0 NVIDIA GeForce GTX 680 which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability supported by this library is 3.7.\n");
    EXPECT_EQ(f.signature, "torch.gpu_too_old");
    EXPECT_EQ(f.kind, Verdict::UnsupportedDevice);
    EXPECT_EQ(f.line, 1);
    EXPECT_EQ(f.arch, "sm_30");
    EXPECT_TRUE(f.family.empty());
    EXPECT_FALSE(f.plan);
    EXPECT_TRUE(contains(f.title, "no kernel image is available")) << f.title;
    EXPECT_TRUE(contains(f.explanation, "NVIDIA GeForce GTX 680, is compute capability 3.0")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "this build supports 3.7 and newer (line 3)")) << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "this finding predicts it")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "TORCH_CUDA_ARCH_LIST=3.0")) << f.fix;
    EXPECT_TRUE(contains(f.fix, "compute capability 3.7 or newer")) << f.fix;
}

// pytorch/pytorch#16712 (PyTorch 1.0): the warning before it printed the build's minimum.
TEST(DiagnosisDeviceSupport, Pytorch16712_WarningWithoutTheBuildsMinimum) {
    const auto f = only(
        "> C:\\Users\\Caner\\Anaconda3\\lib\\site-packages\\torch\\cuda\\__init__.py:117: UserWarning: \n"
        "    Found GPU0 GeForce GTX 670M which is of cuda capability 2.1.\n"
        "    PyTorch no longer supports this GPU because it is too old. warnings.warn(old_gpu_warn % (d, name, major, "
        "capability[1]))\n");
    EXPECT_EQ(f.signature, "torch.gpu_too_old");
    EXPECT_EQ(f.arch, "sm_21");
    EXPECT_TRUE(contains(f.explanation, "which this build no longer supports")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "a GPU of compute capability this build supports")) << f.fix;
}

// ROCm/pytorch#627: PyTorch's ROCm build prints the same warning for a Radeon, whose tensor then runs: no
// NVIDIA architecture, no implied GPU, no predicted failure.
TEST(DiagnosisDeviceSupport, RocmPytorch627_WarningUnderRocmPredictsNothing) {
    const auto f = only(
        "/home/lasercat/.local/lib/python3.6/site-packages/torch/cuda/__init__.py:87: UserWarning: \n"
        "    Found GPU0 Ellesmere [Radeon RX 470/480/570/570X/580/580X] which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability that we support is 3.5.\n"
        "    \n"
        "  warnings.warn(old_gpu_warn % (d, name, major, capability[1]))\n"
        "tensor([9], device='cuda:0')\n");
    EXPECT_EQ(f.signature, "torch.gpu_too_old");
    EXPECT_TRUE(f.arch.empty()) << f.arch;
    EXPECT_TRUE(f.impliedDevices.empty());
    EXPECT_TRUE(contains(f.title, "AMD ROCm / HIP")) << f.title;
    EXPECT_TRUE(contains(f.explanation, "no failure is predicted")) << f.explanation;
    EXPECT_FALSE(contains(f.explanation, "CUDA 13")) << f.explanation;
}

// alievk/avatarify-python#58 (inline backticks dropped): with the error in the log, the warning's finding
// yields to cuda.no_kernel_image's, which reads the GPU and the build's minimum from the warning.
TEST(DiagnosisDeviceSupport, Avatarify58_ErrorFindingReadsTheOldGpuWarning) {
    const auto f = only(
        "    Found GPU0 GeForce GTX 660 Ti which is of cuda capability 3.0.\n"
        "    PyTorch no longer supports this GPU because it is too old.\n"
        "    The minimum cuda capability that we support is 3.5.\n"
        "\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
    EXPECT_EQ(f.signature, "cuda.no_kernel_image");
    EXPECT_EQ(f.line, 5);
    EXPECT_EQ(f.arch, "sm_30");
    EXPECT_TRUE(contains(f.explanation, "GeForce GTX 660 Ti is compute capability 3.0 and this build's oldest is 3.5 (line 3)"))
        << f.explanation;
    EXPECT_TRUE(contains(f.explanation, "older than every architecture the build holds")) << f.explanation;
    EXPECT_TRUE(contains(f.fix, "TORCH_CUDA_ARCH_LIST=3.0")) << f.fix;
    EXPECT_TRUE(contains(f.fix, "compute capability 3.5 or newer")) << f.fix;
}

}  // namespace
}  // namespace tilescope
