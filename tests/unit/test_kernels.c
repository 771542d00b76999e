/* test_kernels.c: kernel names: Tensor Core verdicts and the short form. */
#include "src/kernels.h"
#include "tests/unit/tap.h"

int main(void)
{
	char b[256];
	is_str(kernel_short_name(
		       "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
		       "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		       b, sizeof b),
	       "at::native::vectorized_elementwise_kernel<\u2026>(\u2026)",
	       "nested template arguments and parameters fold");
	is_str(kernel_short_name(
		       "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float const*, int)",
		       b, sizeof b),
	       "at::native::(anonymous)::cunn_SoftMaxForward<\u2026>(\u2026)",
	       "the anonymous namespace stays, shorter");
	is_str(kernel_short_name("volta_sgemm_128x64_nn", b, sizeof b), "volta_sgemm_128x64_nn",
	       "a plain name as it is");
	is_str(kernel_short_name("f<>()", b, sizeof b), "f<>()", "empty lists stay");
	is_str(kernel_short_name("broken<int, (x", b, sizeof b), "broken<int, (x", "unbalanced: the rest as it is");
	is_str(kernel_short_name(
		       "std::enable_if<(((8)>(0))), void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(int)",
		       b, sizeof b),
	       "std::enable_if<\u2026>::type vllm::fused_add_rms_norm_kernel<\u2026>(\u2026)",
	       "a '>' inside parentheses of a template argument");
	char small[8];
	is_str(kernel_short_name("abcdefghijkl", small, sizeof small), "abcdefg", "cut to the buffer");
	ok(kernel_uses_tensor_cores("volta_h884gemm_64x64_nn") && kernel_on_plugin_tc_list("volta_h884gemm_64x64_nn"),
	   "h884: both lists");
	ok(kernel_uses_tensor_cores("sm80_xmma_wgrad_implicit_gemm_tf32") &&
	           !kernel_on_plugin_tc_list("sm80_xmma_wgrad_implicit_gemm_tf32"),
	   "Ampere wgrad implicit GEMM: ours, not the plugin's list");
	ok(!kernel_uses_tensor_cores("volta_sgemm_128x64_nn"), "FP32 SGEMM: no Tensor Cores");
	ok(kernel_is_matmul_like("volta_sgemm_128x64_nn") &&
	           kernel_is_matmul_like("cudnn::detail::implicit_convolve_sgemm") &&
	           kernel_is_matmul_like("void at::native::conv_depthwise2d_forward_kernel"),
	   "GEMMs and convolutions are matmul-like");
	ok(!kernel_is_matmul_like(
		   "std::enable_if<vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add"),
	   "_typeConvert is not a convolution");
	return done_testing();
}
