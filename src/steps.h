/* steps.h: the Overview's step figures: every step with its time, the TensorBoard plugin's
 * step-time breakdown, a breakdown by training phase, and the achieved TFLOP/s.
 *
 * Steps are the plugin's (src/tb_steps.h): ProfilerStep#N stretched to the device, or one
 * step "0" without them. Each figure below is defined exactly in ttrace(1), OVERVIEW.
 *
 * Breakdown (the plugin's OverallParser): eight roles in priority order, Kernel (not
 * launched by a communication op) > Memcpy > Memset > Communication > Runtime > DataLoader >
 * CPU Exec > Other. Each instant of a step goes to the first role that covers it, so the
 * roles sum to the step's duration. Roles come from the category of complete (X) events, as
 * the plugin reads them (case-insensitive): kernel; gpu_memcpy, memcpy; gpu_memset, memset;
 * cuda_runtime, runtime and the other *_runtime (not cuda_driver); cpu_op, operator,
 * user_annotation, gpu_user_annotation, python (not python_function). Communication is the
 * CPU ops named nccl:/gloo: broadcast, reduce, all_reduce, all_gather or reduce_scatter,
 * and the kernels whose External id is one of theirs (trace.comm_ops). DataLoader is cpu_op/user_annotation
 * `enumerate(DataLoader)#...__next__` and `enumerate(DataPipe)#...`.
 *
 * Phases (ttrace's own): DataLoader > Optimizer > Backward > Forward > Other over each
 * host step (the ProfilerStep#N span), from the markers the trace holds on CPU threads;
 * each phase says which kinds of marker it was found from (enum phase_source), and a
 * phase that nothing marks is unknown (its time stays in Other). GPU time of a phase is
 * the duration of the GPU operations (kernels, memcpys, memsets) whose launching runtime
 * call starts in it.
 *
 * TFLOP/s: the "flops" args (with_flops=True) of the operators that start in a host step,
 * summed, over the step's duration. */
#ifndef TT_STEPS_H
#define TT_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/model.h"
#include "src/tb_steps.h"

enum step_role {
	ROLE_KERNEL,
	ROLE_MEMCPY,
	ROLE_MEMSET,
	ROLE_COMM,
	ROLE_RUNTIME,
	ROLE_DATALOADER,
	ROLE_CPU_EXEC,
	ROLE_OTHER,
	ROLE__COUNT
};

enum step_phase { PHASE_DATALOADER, PHASE_FORWARD, PHASE_BACKWARD, PHASE_OPTIMIZER, PHASE_OTHER, PHASE__COUNT };

/* The kinds of marker a phase is found from (bits). */
enum phase_source {
	PSRC_LABEL = 1 << 0,           /* a record_function label: "## forward ##", "backward", ... */
	PSRC_DATALOADER = 1 << 1,      /* enumerate(DataLoader)#... / enumerate(DataPipe)#... */
	PSRC_DDP_FORWARD = 1 << 2,     /* DistributedDataParallel.forward / DataParallel.forward */
	PSRC_MODULE = 1 << 3,          /* nn.Module: ... (with_modules / with_stack) */
	PSRC_AUTOGRAD = 1 << 4,        /* autograd::engine::evaluate_function: ... */
	PSRC_AUTOGRAD_NODE = 1 << 5,   /* autograd nodes, ...Backward[N] (traces before evaluate_function) */
	PSRC_OPTIMIZER = 1 << 6,       /* Optimizer.step#... / Optimizer.zero_grad#... */
	PSRC_BEFORE_BACKWARD = 1 << 7, /* forward: the host step up to its first backward marker */
	PSRC__COUNT = 8
};

struct step_stats {
	int64_t number;
	int64_t start, end;              /* the plugin's window (device-adjusted) */
	int64_t host_start, host_end;    /* the ProfilerStep#N span */
	int64_t role[ROLE__COUNT];       /* ns; they sum to end - start */
	int64_t phase_cpu[PHASE__COUNT]; /* ns of the host step; they sum to host_end - host_start */
	int64_t phase_gpu[PHASE__COUNT]; /* ns of GPU operations launched in each phase */
	uint8_t phase_known;             /* bit p: phase p is marked in this step (Other always) */
	int64_t gpu_launched;            /* ns of GPU operations launched in the host step */
	int64_t flops;                   /* FLOPs of the operators starting in the host step */
	uint32_t flop_ops;               /* how many operators carried them */
};

struct step_report {
	struct step_stats *steps; /* the plugin's kept steps, in time order */
	uint32_t n;
	bool from_profiler_steps;            /* false: one step "0", the span of the CPU ops */
	uint32_t gpu_side_steps;             /* gpu_user_annotation ProfilerStep#N copies (not steps here) */
	bool has_communication;              /* the plugin shows Communication only then */
	double dur_avg;                      /* mean step duration, ns */
	double role_avg[ROLE__COUNT];        /* mean ns per step, over all steps */
	unsigned phase_source[PHASE__COUNT]; /* enum phase_source bits found, 0: unknown */
	uint32_t phase_steps[PHASE__COUNT];  /* steps in which the phase is known */
	double phase_cpu_avg[PHASE__COUNT];  /* mean ns over those steps (NAN when none) */
	double phase_gpu_avg[PHASE__COUNT];
	double phase_cpu_share[PHASE__COUNT]; /* over those steps: of the host steps' time, 0-1 (NAN when none) */
	double phase_gpu_share[PHASE__COUNT]; /* of the GPU time they launched, 0-1 (NAN when none) */
	double host_avg;                      /* mean host step duration, ns */
	double gpu_launched_avg;              /* mean GPU time launched per host step, ns */
	bool has_flops;                       /* some operator carried "flops" */
	int64_t flops_total;                  /* over the kept steps */
	double tflops_avg;                    /* flops_total / total step time, in TFLOP/s (NAN without flops) */
};

/* Fills R from T (free with steps_free) over the plugin's steps STEPS (NSTEPS, as
 * tb_steps_find gives them) or, when STEPS is NULL, those it finds. Never fails: a trace
 * without steps or GPU work still has its one step "0". */
void steps_analyse(const struct trace *t, const struct tb_step *steps, uint32_t nsteps, struct step_report *r);
void steps_free(struct step_report *r);
/* "Kernel", "Memcpy", ..., as the plugin titles them, and stable keys ("kernel", ...). */
const char *step_role_title(enum step_role r);
const char *step_role_key(enum step_role r);
/* "DataLoader", "Forward", ... and keys ("dataloader", ...). */
const char *step_phase_title(enum step_phase p);
const char *step_phase_key(enum step_phase p);
/* The names of the source bits SRC joined by '+' ("label+Optimizer.step") into BUF, or
 * "unknown" when SRC is 0. Returns BUF. */
const char *phase_source_text(unsigned src, char *buf, size_t n);
/* The achieved TFLOP/s of step S (NAN when no operator in it carried flops or it lasts 0). */
double step_tflops(const struct step_stats *s);

#endif
