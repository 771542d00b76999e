/* grid.c: the cell grid and its text dump. */
#include "ui/grid.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "lib/escape.h"

static const char style_letters[CS__COUNT] = {
	[CS_NORMAL] = ' ', [CS_HEADER] = 'h',    [CS_RULER] = 'r',        [CS_TRACK] = 't',      [CS_GROUP] = 'G',
	[CS_SLICE] = 's',  [CS_SLICE_SEL] = 'S', [CS_MATCH] = 'm',        [CS_EMPTY] = '.',      [CS_CURSOR] = 'c',
	[CS_MARK] = 'M',   [CS_DETAILS] = 'd',   [CS_STATUS] = 'x',       [CS_HILITE] = 'H',     [CS_GAP] = 'g',
	[CS_UTIL] = 'u',   [CS_MEM_ALLOC] = 'a', [CS_MEM_RESERVED] = 'e', [CS_ANNOTATION] = 'n',
};

char grid_style_letter(enum cell_style s) { return s < CS__COUNT ? style_letters[s] : '?'; }

void grid_init(struct grid *g, int w, int h)
{
	g->w = w > 0 ? w : 1;
	g->h = h > 0 ? h : 1;
	g->cells = xcalloc((size_t)g->w * (size_t)g->h, sizeof *g->cells);
	grid_clear(g, CS_NORMAL);
}

void grid_free(struct grid *g)
{
	free(g->cells);
	g->cells = NULL;
	g->w = g->h = 0;
}

void grid_clear(struct grid *g, enum cell_style style)
{
	for (int i = 0; i < g->w * g->h; i++) {
		g->cells[i].ch = ' ';
		g->cells[i].style = (uint8_t)style;
		g->cells[i].color = 0;
	}
}

void grid_set(struct grid *g, int x, int y, uint32_t ch, enum cell_style style, uint8_t color)
{
	if (x < 0 || y < 0 || x >= g->w || y >= g->h)
		return;
	struct cell *c = &g->cells[y * g->w + x];
	/* whatever a caller passes, no control reaches the terminal from a cell */
	if (ch != 0 && (escape_cp_is_control(ch) || ch > 0x10ffff || (ch >= 0xd800 && ch < 0xe000)))
		ch = '?';
	c->ch = ch;
	c->style = (uint8_t)style;
	c->color = color;
}

int grid_text(struct grid *g, int x, int y, int maxx, const char *s, enum cell_style style, uint8_t color)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	if (maxx > g->w)
		maxx = g->w;
	while (p < end && x < maxx) {
		uint32_t cp;
		int n = utf8_seq_len(p, end);
		if (n <= 0) {
			cp = '?';
			n = 1;
		} else if (n == 1) {
			cp = *p;
		} else {
			cp = (uint32_t)(*p & (0xff >> (n + 1)));
			for (int k = 1; k < n; k++)
				cp = cp << 6 | (p[k] & 0x3f);
		}
		grid_set(g, x++, y, cp, style, color);
		p += n;
	}
	return x;
}

static void put_utf8(FILE *f, uint32_t cp)
{
	if (cp < 0x80) {
		fputc((int)cp, f);
	} else if (cp < 0x800) {
		fputc((int)(0xc0 | (cp >> 6)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	} else if (cp < 0x10000) {
		fputc((int)(0xe0 | (cp >> 12)), f);
		fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	} else {
		fputc((int)(0xf0 | (cp >> 18)), f);
		fputc((int)(0x80 | ((cp >> 12) & 0x3f)), f);
		fputc((int)(0x80 | ((cp >> 6) & 0x3f)), f);
		fputc((int)(0x80 | (cp & 0x3f)), f);
	}
}

void grid_dump(const struct grid *g, FILE *f)
{
	for (int y = 0; y < g->h; y++) {
		for (int x = 0; x < g->w; x++) {
			uint32_t ch = g->cells[y * g->w + x].ch;
			if (ch != 0)
				put_utf8(f, ch);
		}
		fputc('\n', f);
	}
	fputs("--\n", f);
	for (int y = 0; y < g->h; y++) {
		for (int x = 0; x < g->w; x++)
			fputc(grid_style_letter(g->cells[y * g->w + x].style), f);
		fputc('\n', f);
	}
}
