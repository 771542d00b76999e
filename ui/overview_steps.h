/* overview_steps.h: the Overview's steps (src/steps.h): their tables, and their part of
 * --report=overview (ui/overview.h writes the rest).
 *
 * Three tables, each defined once (columns and a fill function) for the report and for a
 * panel: the steps (a row per step: its window, the plugin's breakdown, the phases, the
 * TFLOP/s), the mean breakdown (a row per role) and the mean phases (a row per phase).
 * The mean tables carry a text-only bar column ("██████░░░░") beside the percentage. */
#ifndef TT_OVERVIEW_STEPS_H
#define TT_OVERVIEW_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "src/steps.h"
#include "ui/jsonw.h"
#include "ui/table.h"

#define OVERVIEW_STEP_COLS 32
#define OVERVIEW_ROLE_COLS 5
#define OVERVIEW_PHASE_COLS 9
#define OVERVIEW_BAR_WIDTH 10

/* The step table: fills COLS (OVERVIEW_STEP_COLS of room) and returns how many; fills TB
 * (initialised with them) with a row per step of R, tagged with its position in R. */
int overview_step_columns(struct column *cols);
void overview_step_fill(struct table *tb, const struct trace *t, const struct step_report *r);
/* The column sets of the step table's two text listings: the breakdown per step, and the
 * phases per step. */
uint64_t overview_step_breakdown_cols(const struct table *tb, const struct step_report *r);
uint64_t overview_step_phase_cols(const struct table *tb);

/* The mean breakdown: a row per role (tag: enum step_role). */
int overview_role_columns(struct column *cols);
void overview_role_fill(struct table *tb, const struct step_report *r);
/* The mean phases: a row per phase (tag: enum step_phase). */
int overview_phase_columns(struct column *cols);
void overview_phase_fill(struct table *tb, const struct step_report *r);

/* A bar of WIDTH cells for FRACTION (0-1, clamped; NaN: empty) into BUF: full blocks, then
 * light shade. Returns BUF. */
const char *overview_bar(double fraction, int width, char *buf, size_t n);

/* Writes T's steps part of the Overview as text to F: the steps with their breakdown and
 * phases, the mean breakdown with bars, the mean phases with their sources, the TFLOP/s. */
void overview_steps_text(FILE *f, struct trace *t);
/* Writes the same as keys of the JSON object open in W (steps_from, ..., steps). */
void overview_steps_json(struct jsonw *w, struct trace *t);

#endif
