/* grid.h: the screen as an in-memory grid of cells, drawn without curses.
 *
 * Everything visible is drawn here first; ui/tty.c copies the grid to the terminal (only
 * the cells that changed), and --dump-screen prints it: the text, then one style letter
 * per cell. A cell holds one Unicode code point (or a continuation of a wide one) and a
 * style; colour comes from the style and, for slices, a palette index. */
#ifndef TT_GRID_H
#define TT_GRID_H

#include <stdint.h>
#include <stdio.h>

/* What a cell shows; each has a letter in the dump. */
enum cell_style {
	CS_NORMAL,       /* ' ' */
	CS_HEADER,       /* 'h' header line */
	CS_RULER,        /* 'r' time ruler */
	CS_TRACK,        /* 't' track column */
	CS_GROUP,        /* 'G' process/device group line */
	CS_SLICE,        /* 's' a slice (colour = palette index) */
	CS_SLICE_SEL,    /* 'S' the selected slice */
	CS_MATCH,        /* 'm' a slice matching the search */
	CS_EMPTY,        /* '.' timeline with nothing in it */
	CS_CURSOR,       /* 'c' the time cursor column */
	CS_MARK,         /* 'M' a marked region */
	CS_DETAILS,      /* 'd' details panel */
	CS_STATUS,       /* 'x' status line */
	CS_HILITE,       /* 'H' highlighted text (selected row's name, key names) */
	CS_GAP,          /* 'g' a gap: the whole device idle */
	CS_UTIL,         /* 'u' the device utilization line */
	CS_MEM_ALLOC,    /* 'a' a counter track's allocated bar */
	CS_MEM_RESERVED, /* 'e' a counter track's reserved shade */
	CS_ANNOTATION,   /* 'n' a GPU annotation: a thin line, not a block of work */
	CS__COUNT
};

struct cell {
	uint32_t ch;   /* code point; 0 = the right half of a wide character */
	uint8_t style; /* enum cell_style */
	uint8_t color; /* palette index for slices, 0 otherwise */
};

struct grid {
	int w, h;
	struct cell *cells;
};

/* Allocates a W x H grid of blank cells. */
void grid_init(struct grid *g, int w, int h);
void grid_free(struct grid *g);
/* Fills the grid with blanks of STYLE. */
void grid_clear(struct grid *g, enum cell_style style);
/* Sets one cell; out-of-range coordinates are ignored, and a control code point (C0, DEL,
 * C1, bidi: escape_cp_is_control) or a value that is no Unicode scalar is stored as '?'. */
void grid_set(struct grid *g, int x, int y, uint32_t ch, enum cell_style style, uint8_t color);
/* Writes UTF-8 text (already made safe by lib/escape.h) from (x, y), clipped at MAXX
 * (exclusive); returns the column after the last cell written. Invalid bytes and controls
 * become '?'. */
int grid_text(struct grid *g, int x, int y, int maxx, const char *utf8, enum cell_style style, uint8_t color);
/* Writes the grid as text lines (trailing blanks kept), then, after a line "--", one line
 * of style letters per row. */
void grid_dump(const struct grid *g, FILE *f);
/* The dump letter of a style. */
char grid_style_letter(enum cell_style s);

#endif
