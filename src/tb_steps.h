/* tb_steps.h: the steps as the TensorBoard profiler plugin finds them (its "device-adjusted"
 * steps), shared by the gap analysis (src/gaps.h) and the step analysis (src/steps.h).
 *
 * Host steps are the CPU-side ProfilerStep#N slices in time order (GPU-side copies, category
 * gpu_user_annotation, are not steps here; the plugin takes them for more steps, see
 * ttrace(1)). Each step starts at max(its host start, the previous step's end) and ends at
 * max(its host end, the last end of the GPU work launched by runtime calls lying wholly
 * inside the host step; cuda_driver calls are not runtime calls to the plugin). Trailing
 * steps that launched nothing are dropped, and so is a last step that launched fewer than
 * 80% of the step before it. Without ProfilerStep#N there is one step "0": the span of the
 * cpu_op (Operator) slices, or of the whole trace when it has none, stretched the same way.
 * The first step starts no earlier than the end of the GPU work that no step launched and
 * that ends before the first step's own GPU work starts (the plugin's prev_step_end_time). */
#ifndef TT_TB_STEPS_H
#define TT_TB_STEPS_H

#include <stdint.h>

#include "src/model.h"

struct tb_step {
	int64_t number;
	int64_t start, end;           /* device-adjusted, as the TensorBoard plugin computes them */
	int64_t host_start, host_end; /* the ProfilerStep#N slice (or the step "0" span) */
	uint32_t launched;            /* GPU operations launched by runtime calls inside the host step */
};

/* Returns T's steps (at least one; allocated, the caller frees them) and their count in *N. */
struct tb_step *tb_steps_find(const struct trace *t, uint32_t *n);

#endif
