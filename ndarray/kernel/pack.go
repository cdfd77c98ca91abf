package kernel

// packA copies the mb×kb block of alpha*op(A) at (ic, pc) into tiles of
// nearly equal height (the first mb%tiles tiles one row taller), each
// stored k-major: tile[p*h+i] = alpha*op(A)[ic+r+i][pc+p].
func (g *gemmImpl) packA(trans bool, alpha float32, a []float32, lda, ic, pc, mb, kb, tiles int, dst []float32) {
	base, extra := mb/tiles, mb%tiles
	off, r := 0, 0
	for t := 0; t < tiles; t++ {
		h := base
		if t < extra {
			h++
		}
		tile := dst[off : off+h*kb]
		switch {
		case trans && g.packATransTile != nil:
			src := a[pc*lda+ic+r:]
			_ = src[(kb-1)*lda+h-1] // the tile lies inside a
			g.packATransTile(&tile[0], &src[0], h, kb, lda, h, alpha)
		case !trans && g.packATile != nil:
			src := a[(ic+r)*lda+pc:]
			_ = src[(h-1)*lda+kb-1]
			g.packATile(&tile[0], &src[0], h, kb, lda, h, alpha)
		case trans:
			// op(A)[i][p] = a[p*lda+i]: each p holds h contiguous rows.
			for p := 0; p < kb; p++ {
				src := a[(pc+p)*lda+ic+r:][:h]
				d := tile[p*h : p*h+h]
				if alpha == 1 {
					copy(d, src)
				} else {
					for i, v := range src {
						d[i] = alpha * v
					}
				}
			}
		default:
			for i := 0; i < h; i++ {
				src := a[(ic+r+i)*lda+pc:][:kb]
				if alpha == 1 {
					for p, v := range src {
						tile[p*h+i] = v
					}
				} else {
					for p, v := range src {
						tile[p*h+i] = alpha * v
					}
				}
			}
		}
		off += h * kb
		r += h
	}
}

// packBTransPanel copies the kb×w block of op(B) = Bᵀ at (pc, j0) into
// panel, row by row and zero padded to nr columns:
// panel[p*nr+j] = b[(j0+j)*ldb+pc+p]. Each column j is contiguous in b.
func (g *gemmImpl) packBTransPanel(b []float32, ldb, pc, j0, kb, w int, panel []float32) {
	nr := g.nr
	if g.packATile != nil {
		// The panel is the transpose of the w×kb block of b: pack it
		// as tiles of A of up to packRows rows, one after the other
		// along the panel's rows.
		for j := 0; j < w; j += g.packRows {
			h := min(g.packRows, w-j)
			src := b[(j0+j)*ldb+pc:]
			_ = src[(h-1)*ldb+kb-1] // the block lies inside b
			g.packATile(&panel[j], &src[0], h, kb, ldb, nr, 1)
		}
	} else {
		for j := 0; j < w; j++ {
			src := b[(j0+j)*ldb+pc:][:kb]
			for p, v := range src {
				panel[p*nr+j] = v
			}
		}
	}
	if w < nr {
		for p := 0; p < kb; p++ {
			clear(panel[p*nr+w : p*nr+nr])
		}
	}
}

// packB copies the kb×nb block of B (not transposed) at (pc, jc) into
// panels nr columns wide, zero padded: panel q holds
// panel[p*nr+j] = b[(pc+p)*ldb+jc+q*nr+j]. It reads B row by row, so the
// hardware prefetchers see long sequential runs.
func (g *gemmImpl) packB(b []float32, ldb, pc, jc, kb, nb int, pb []float32) {
	nr := g.nr
	full := nb / nr
	for p := 0; p < kb; p++ {
		src := b[(pc+p)*ldb+jc:][:nb]
		off := p * nr
		if full > 0 {
			_ = pb[off+(full-1)*kb*nr+nr-1] // the chunks lie inside pb
			g.copyChunks(&pb[off], &src[0], full, kb*nr, nr)
			off += full * kb * nr
		}
		if w := nb - full*nr; w > 0 {
			d := pb[off : off+nr]
			copy(d, src[full*nr:])
			clear(d[w:])
		}
	}
}

// scaleMatrix sets the m×n matrix C to beta*C; beta == 0 writes zeros
// without reading C.
func scaleMatrix(vec *vecImpl, m, n int, beta float32, c []float32, ldc int) {
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		switch beta {
		case 0:
			clear(row)
		case 1:
		default:
			vec.scale(beta, row)
		}
	}
}
