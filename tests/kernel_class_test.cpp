#include "measured/kernel_class.h"

#include <catch2/catch.hpp>

using namespace trainsim;

namespace {
KernelCategory cat(const char* name) {
  return classify_kernel(name).category;
}
}  // namespace

TEST_CASE("kernel names from real traces land in the cost model's categories") {
  // cuBLAS / CUTLASS GEMMs of A100 and H100 (cuBLAS 12.x, 12.8's nvjet), and split-K's reduction.
  CHECK(cat("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nn") == KernelCategory::Gemm);
  CHECK(cat("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas") == KernelCategory::Gemm);
  CHECK(cat("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN") == KernelCategory::Gemm);
  CHECK(cat("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(Params)") ==
        KernelCategory::Gemm);
  CHECK(cat("void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false>") ==
        KernelCategory::Gemm);
  // Attention: FlashAttention-2 (flash-attn and PyTorch's copy), xFormers/mem-efficient,
  // cuDNN SDPA, llm-foundry's Triton kernel.
  CHECK(cat("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, "
            "true>(Flash_fwd_params)") == KernelCategory::Attention);
  CHECK(cat("void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<…>") ==
        KernelCategory::Attention);
  CHECK(cat("fmha_cutlassB_bf16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::"
            "AttentionBackwardKernel)") == KernelCategory::Attention);
  CHECK(cat("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128") ==
        KernelCategory::Attention);
  CHECK(cat("_fwd_kernel_0d1d2d3d4d5d6d7d8d9d10d11d12d") == KernelCategory::Attention);
  // cuDNN attention's backward helpers, as PyTorch 2.11 under torch.compile ran them on an H100
  // (calibrate/reference/, tests/data/kineto/h100-llama8b-4layers-compiled.json.gz).
  CHECK(cat("void cudnn::fusion::compute_dot_do_o_specialized<true, 128>(void const*, void "
            "const*, void*, void*, float, unsigned int)") == KernelCategory::Attention);
  CHECK(cat("void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int, "
            "unsigned int)") == KernelCategory::Attention);
  CHECK(cat("void cudnn::fusion::fmha_reduce_head<true>(void const*, void*, unsigned int)") ==
        KernelCategory::Attention);
  // NCCL, with the collective from the name.
  const auto ar = classify_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, …)");
  CHECK(ar.category == KernelCategory::Communication);
  CHECK(ar.collective == "all_reduce");
  CHECK(classify_kernel(
            "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
            .collective == "reduce_scatter");
  CHECK(classify_kernel("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)")
            .collective == "all_gather");
  CHECK(classify_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)").collective ==
        "sendrecv");
  // Optimizers: a multi-tensor Adam, fused Adam; "lambda" and "Msg" are not LAMB or SGD.
  CHECK(cat("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float, 2, 4>>") ==
        KernelCategory::Optimizer);
  // PyTorch's dense embedding backward (the H100 reference step's trace).
  CHECK(cat("void at::native::(anonymous namespace)::compute_grad_weight<c10::BFloat16, long>(long "
            "const*, c10::BFloat16 const*, long const*, long, long, long, long const*, "
            "float*)") == KernelCategory::MemoryBound);
  CHECK(cat("void at::native::(anonymous namespace)::krn_partials_per_segment<long>(long*, long "
            "const*, long const*, long)") == KernelCategory::MemoryBound);
  // Gradient clipping's foreach norm and rescale (the H100 reference step's trace).
  CHECK(cat("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::"
            "(anonymous namespace)::TensorListMetadata<1>, at::native::(anonymous "
            "namespace)::BinaryOpScalarTensorFunctor<float, 1, 1, 0>, std::multiplies<float>, "
            "float*, float>(…)") == KernelCategory::Optimizer);
  CHECK(cat("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "
            "namespace)::launch_clamp_scalar(…)::{lambda()#1}>") == KernelCategory::MemoryBound);
  // A pointwise kernel whatever its operation is called (its family names the functor, which
  // the not-modelled rules' "conv" must not match).
  CHECK(cat("void at::native::vectorized_elementwise_kernel<4, at::native::ConvertFunctor<float>>"
            "(int, …)") == KernelCategory::MemoryBound);
  // Memory-bound: PyTorch pointwise and reductions, LayerNorm, softmax, cat, Inductor's Triton.
  CHECK(cat("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, …>>") ==
        KernelCategory::MemoryBound);
  CHECK(cat("void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float>(…)") ==
        KernelCategory::MemoryBound);
  CHECK(cat("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, …>") ==
        KernelCategory::MemoryBound);
  CHECK(cat("triton_poi_fused_add_mul_0") == KernelCategory::MemoryBound);
  CHECK(cat("Memcpy DtoD (Device -> Device)") == KernelCategory::MemoryBound);
  // Not modelled: convolutions, fbgemm embeddings; a name no rule knows.
  CHECK(cat("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw") ==
        KernelCategory::Other);
  CHECK(cat("void split_embedding_codegen_forward_unweighted_kernel<float, …>") ==
        KernelCategory::Other);
  CHECK(cat("my_custom_kernel") == KernelCategory::Other);
}

TEST_CASE("a kernel's family drops namespaces, template arguments and parameters") {
  // PyTorch's elementwise templates keep the operation: the functor among their template
  // arguments (names from tests/data/kineto/h200-mpt125m.json.gz).
  CHECK(kernel_family("void at::native::vectorized_elementwise_kernel<4, "
                      "at::native::FillFunctor<float>>(int, …)") ==
        "vectorized_elementwise_kernel<FillFunctor>");
  CHECK(kernel_family("void at::native::vectorized_elementwise_kernel<4, "
                      "at::native::AUnaryFunctor<float, float, float, "
                      "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> "
                      ">(int, …)") == "vectorized_elementwise_kernel<MulFunctor>");
  CHECK(kernel_family("void at::native::elementwise_kernel<128, 4, "
                      "at::native::gpu_kernel_impl_nocast<at::native::CUDAFunctor_add<c10::"
                      "BFloat16> >(at::TensorIteratorBase&, …)::{lambda(int)#1}>(int, …)") ==
        "elementwise_kernel<CUDAFunctor_add>");
  CHECK(kernel_family("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_"
                      "cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda("
                      "float)#1}, std::array<char*, 2ul>, 4, …>(…)") ==
        "unrolled_elementwise_kernel<direct_copy_kernel_cuda>");
  CHECK(kernel_family("void at::native::vectorized_elementwise_kernel<8, at::native::"
                      "GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
                      "{lambda()#2}…>(int, …)") ==
        "vectorized_elementwise_kernel<GeluBackwardCUDAKernelImpl>");
  CHECK(kernel_family("void (anonymous namespace)::elementwise_kernel_with_index<int, "
                      "at::native::arange_cuda_out(c10::Scalar const&, …)::{lambda(long)#1}>(int, "
                      "…)") == "elementwise_kernel_with_index<arange_cuda_out>");
  CHECK(kernel_family("void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned "
                      "int, 1, 128, 1>(…)") == "CatArrayBatchedCopy");
  CHECK(kernel_family(
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(Params)") ==
        "cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4");
  CHECK(kernel_family(
            "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)") ==
        "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
  CHECK(kernel_family("Memcpy DtoD (Device -> Device)") == "Memcpy DtoD");
}

TEST_CASE("a mangled kernel name is demangled before its family is taken") {
  // From nccl_data.json.gz (a cuDNN convolution): _ZN19cutlass_cudnn_train6KernelINS_4conv6…
  // demangles to cutlass_cudnn_train::Kernel<cutlass_cudnn_train::conv::kernel::
  // ImplicitGemmConvolution<…>>(…).
  CHECK(kernel_family("_ZN19cutlass_cudnn_train6KernelINS_"
                      "4conv6kernel23ImplicitGemmConvolutionIiEEEEvNT_6ParamsE") ==
        "ImplicitGemmConvolution");
  // The real one (1,644 characters) is refused by the demangler (and by c++filt): its family is
  // the longest of its first six source names.
  CHECK(
      kernel_family("_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_"
                    "11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128E") ==
      "ImplicitGemmConvolution");
}
