/* memory.h: the Memory view's figures, from Kineto's [memory] samples
 * (profile_memory=True), as the TensorBoard plugin's Memory view defines them.
 *
 * Devices are (Device Type, Device Id) pairs, named as torch names them ("cpu", "cuda:0",
 * "hip:0"). A device's curve is its samples that carry both Total Allocated and Total
 * Reserved, in time order: the allocator's state right after each event, so the value at
 * time t is the last sample at or before t (a step plot). Peak allocated (reserved) is
 * the largest Total Allocated (Reserved), at the first sample that reaches it.
 *
 * Derived curve (ttrace's; PyTorch before 1.10 writes Bytes but no totals, and the plugin
 * then shows no curve): for a device none of whose samples has the totals, the allocated
 * memory is derived from the samples' Bytes: their running sum in time order, raised by
 * how far that sum falls below zero (frees of memory allocated before the trace began
 * show that much was held; more may have been), so a lower bound of what was allocated,
 * exact in its changes. It is kept apart (mem_device.derived; the reported curve stays
 * empty), the reserved memory is unknown, and every report says the figures are derived.
 *
 * Operators: a sample belongs to the innermost tree node (operator, user annotation,
 * Python function; runtime calls are not nodes) of its own thread whose [start, end)
 * holds its time, and is kept only when that node is an operator (src/ops.h), as the
 * plugin attaches them. Per device and operator name: self figures sum the samples kept
 * by its instances (allocation count and bytes: samples with Bytes > 0; size increase:
 * every Bytes, frees negative); total figures add the samples kept by every operator
 * nested in an instance, an instance inside another of the same name counting in both. */
#ifndef TT_MEMORY_H
#define TT_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/model.h"

struct mem_device {
	int8_t type; /* c10::DeviceType, -1 when the samples do not say */
	int16_t id;
	uint64_t samples;      /* samples of the device */
	uint64_t without_addr; /* of which without "Addr" (the plugin leaves them out of its curve) */
	/* the curve: samples with both totals, in time order (file order on ties) */
	uint32_t *sample;                   /* their index in trace.mem */
	int64_t *ts, *allocated, *reserved; /* their points, for drawing: NULL until memory_points */
	uint32_t n;
	/* figures of the curve; meaningful when n > 0 */
	int64_t peak_allocated, peak_allocated_ts;
	int64_t reserved_at_peak;           /* Total Reserved at the peak-allocated sample */
	struct slice_ref peak_allocated_op; /* innermost operator on its thread then, or {TT_NONE} */
	int64_t peak_reserved, peak_reserved_ts;
	struct slice_ref peak_reserved_op;
	int64_t max_unused, max_unused_ts; /* largest reserved - allocated (fragmentation) */
	int64_t *step_allocated; /* by memory_report.steps: allocated at the step's start, -1 before any sample */
	/* the curve derived from Bytes when no sample has the totals (n is then 0) */
	struct mem_derived {
		uint32_t n;              /* samples with Bytes, in time order; 0: nothing derived */
		int64_t *ts, *allocated; /* base + the running sum of Bytes up to each sample */
		uint32_t *sample;        /* their index in trace.mem */
		int64_t base;            /* how far the running sum falls below 0, else 0 */
		int64_t peak, peak_ts;   /* the largest allocated, at the first sample reaching it */
		struct slice_ref peak_op;
		int64_t *step_allocated; /* by memory_report.steps, as above */
	} derived;
	/* over every sample of the device */
	uint64_t allocations;    /* samples with Bytes > 0 */
	int64_t allocated_bytes; /* their Bytes */
	uint64_t attached;       /* samples kept by an operator */
};

struct mem_op_row {
	uint32_t device; /* index into memory_report.devices */
	uint32_t name;   /* string id */
	uint64_t calls;  /* instances of the name in the trace */
	uint64_t self_allocs, allocs;
	int64_t self_alloc_bytes, alloc_bytes;
	int64_t self_increase, increase;
	struct slice_ref top; /* the instance whose own samples allocated most bytes */
	int64_t top_bytes;
};

struct memory_report {
	uint64_t samples;           /* every [memory] sample */
	struct mem_device *devices; /* by type, then id */
	uint32_t ndevices;
	struct mem_op_row *rows; /* by self bytes allocated, then total, then device and name */
	uint32_t nrows;
	uint32_t *steps; /* trace.steps indices: the CPU ProfilerStep#N in time order */
	uint32_t nsteps;
	bool ops_attached; /* rows computed (memory_attach_ops) */
};

/* Computes T's memory figures into R (zeroed first); free with memory_free. */
void memory_analyse(const struct trace *t, struct memory_report *r);
/* The same in parts: the devices, their curves and figures (R zeroed first; no operator
 * rows, no points), the curves' points for drawing (ts, allocated, reserved: a copy of
 * the samples' fields, 24 bytes a sample, made once and only for what draws them), then
 * the operators' rows (the sweep of every thread that holds a sample), once:
 * memory_analyse is all three. */
void memory_curves(const struct trace *t, struct memory_report *r);
void memory_points(const struct trace *t, struct memory_report *r);
void memory_attach_ops(const struct trace *t, struct memory_report *r);
void memory_free(struct memory_report *r);
/* torch's name of device type TYPE ("cpu", "cuda", "hip"), "type N" past the known ones,
 * "unknown" for -1. Static storage, or BUF. */
const char *memory_type_name(int type, char *buf, size_t n);
/* D's name as torch writes a device: "cpu" (id -1), "cuda:0". Returns BUF. */
const char *memory_device_name(const struct mem_device *d, char *buf, size_t n);
/* The largest allocated and reserved of D's step plot over [T0, T1): the value carried
 * in at T0 and every sample inside. False (nothing set) when no sample lies before T1.
 * D's points must be made (memory_points). */
bool memory_range_max(const struct mem_device *d, int64_t t0, int64_t t1, int64_t *allocated, int64_t *reserved);
/* The row of operator NAME on device DEVICE (index into R->devices), or NULL: for a
 * table that shows an operator's allocations beside its times. O(rows). */
const struct mem_op_row *memory_op_row(const struct memory_report *r, uint32_t device, uint32_t name);

#endif
