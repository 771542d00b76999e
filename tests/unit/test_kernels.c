/* test_kernels.c: kernel names: Tensor Core verdicts and the short form. */
#include "src/kernel_class.h"
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
	struct kernel_class kc;
	kernel_class_of("volta_h884gemm_64x64_nn", KC_ACT_KERNEL, false, &kc);
	ok(kc.unit == KC_UNIT_MATRIX && kernel_on_plugin_tc_list("volta_h884gemm_64x64_nn"),
	   "h884: matrix units, and on the plugin's list");
	kernel_class_of(
		"sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_train",
		KC_ACT_KERNEL, false, &kc);
	ok(kc.unit == KC_UNIT_MATRIX &&
	           !kernel_on_plugin_tc_list(
			   "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize128x128x16_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_train"),
	   "Ampere wgrad implicit GEMM in TF32: matrix units, not on the plugin's list");
	kernel_class_of(
		"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_alignc4",
		KC_ACT_KERNEL, false, &kc);
	ok(kc.unit == KC_UNIT_SIMT &&
	           kernel_on_plugin_tc_list(
			   "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma"),
	   "an FFMA xmma_gemm: SIMT, though the plugin's list takes it");
	kernel_class_of("volta_sgemm_128x64_nn", KC_ACT_KERNEL, false, &kc);
	ok(kc.unit == KC_UNIT_SIMT && kc.family == KC_GEMM, "FP32 SGEMM: a GEMM on SIMT lanes");
	kernel_class_of("void at::native::conv_depthwise2d_forward_kernel<float>(float const*)", KC_ACT_KERNEL, false,
	                &kc);
	ok(kernel_class_is_matmul(kc.family), "a depthwise convolution is matmul work");
	kernel_class_of(
		"std::enable_if<vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm",
		KC_ACT_KERNEL, false, &kc);
	ok(!kernel_class_is_matmul(kc.family), "_typeConvert is not a convolution");
	return done_testing();
}
