package caffe

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Summary describes a processed net: one row per layer with its output
// shapes and parameter count.
type Summary struct {
	Net   string
	State NetState
	Rows  []SummaryRow
	// Params is the number of parameter values the net owns (shared
	// parameters counted once); meaningful only when ParamsKnown.
	Params      int64
	ParamsKnown bool
	// Inputs and Outputs are the net's input and output blobs.
	Inputs  []string
	Outputs []string
}

// SummaryRow is one layer of a Summary.
type SummaryRow struct {
	Layer string
	Type  string
	// Tops and Shapes name each top blob and give its shape (nil when
	// unknown).
	Tops   []string
	Shapes []Shape
	// Params is the number of parameter values the layer owns (shared ones
	// count at their owner); meaningful only when ParamsKnown.
	Params      int64
	ParamsKnown bool
	// Shares names the layers whose parameters this one shares.
	Shares []string
}

// Summarize infers the shapes of a processed net (see InferShapes for
// inputShapes) and tabulates them.
func Summarize(def *NetDef, inputShapes map[string][]int) (*Summary, error) {
	shapes, err := InferShapes(def, inputShapes)
	if err != nil {
		return nil, err
	}
	s := &Summary{Net: def.Name, State: def.State, ParamsKnown: true, Inputs: def.Inputs, Outputs: def.Outputs}
	for i, l := range def.Layers {
		ls := shapes.Layers[i]
		// A layer whose parameter blobs are known only once it is set
		// up has them counted when shape inference set it up.
		row := SummaryRow{Layer: l.Name, Type: l.Type, Tops: l.Tops, Shapes: ls.Tops, ParamsKnown: l.ParamsKnown || ls.setUp}
		for k, shape := range ls.Params {
			if k < len(l.Params) {
				if p := def.Params[l.Params[k]]; p.Owner >= 0 {
					owner := def.Layers[def.Params[p.Owner].Layer].Name
					if len(row.Shares) == 0 || row.Shares[len(row.Shares)-1] != owner {
						row.Shares = append(row.Shares, owner)
					}
					continue
				}
			}
			if !shape.Known() {
				row.ParamsKnown = false
				continue
			}
			row.Params += int64(shape.Count())
		}
		if row.ParamsKnown {
			s.Params += row.Params
		} else {
			s.ParamsKnown = false
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

// String renders the summary as an aligned text table.
func (s *Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Net %q (%s)\n", s.Net, s.State)
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "LAYER\tTYPE\tOUTPUT\tSHAPE\tPARAMS")
	for _, r := range s.Rows {
		params := "?"
		if r.ParamsKnown {
			params = groupDigits(r.Params)
		}
		if len(r.Shares) > 0 {
			params += " (shares " + strings.Join(r.Shares, ", ") + ")"
		}
		if len(r.Tops) == 0 {
			fmt.Fprintf(w, "%s\t%s\t-\t\t%s\n", r.Layer, r.Type, params)
			continue
		}
		for j, top := range r.Tops {
			if j == 0 {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Layer, r.Type, top, r.Shapes[j], params)
			} else {
				fmt.Fprintf(w, "\t\t%s\t%s\t\n", top, r.Shapes[j])
			}
		}
	}
	w.Flush()
	// Continuation lines end in padding; drop it.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	b.Reset()
	b.WriteString(strings.Join(lines, "\n"))
	if s.ParamsKnown {
		fmt.Fprintf(&b, "Total params: %s\n", groupDigits(s.Params))
	} else {
		fmt.Fprintf(&b, "Total params: unknown (%s in layers of known shape); give the input shapes\n", groupDigits(s.Params))
	}
	return b.String()
}

// groupDigits writes n with thousands separators: 1,234,567.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
