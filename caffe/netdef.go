package caffe

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

// Phase is the phase a net is built for: Train or Test.
type Phase int32

// The phases, numbered as Caffe's Phase enum.
const (
	Train Phase = 0
	Test  Phase = 1
)

func (p Phase) String() string {
	switch p {
	case Train:
		return "TRAIN"
	case Test:
		return "TEST"
	}
	return "Phase(" + strconv.Itoa(int(p)) + ")"
}

// ParsePhase reads a phase name, TRAIN or TEST, in any case.
func ParsePhase(s string) (Phase, error) {
	switch strings.ToUpper(s) {
	case "TRAIN":
		return Train, nil
	case "TEST":
		return Test, nil
	}
	return 0, fmt.Errorf("caffe: unknown phase %q; use TRAIN or TEST", s)
}

// NetState selects which layers of a net definition are built: a layer's
// include/exclude rules are checked against the phase, the level and the
// stages.
type NetState struct {
	Phase  Phase
	Level  int
	Stages []string
}

// NetStateOf returns the state stored in a net definition, with Caffe's
// defaults (phase TEST, level 0) for what it leaves out.
func NetStateOf(np *caffepb.NetParameter) NetState {
	s := np.GetState()
	return NetState{
		Phase:  Phase(s.GetPhase()),
		Level:  int(s.GetLevel()),
		Stages: append([]string(nil), s.GetStage()...),
	}
}

func (s NetState) String() string {
	out := "phase " + s.Phase.String()
	if s.Level != 0 {
		out += fmt.Sprintf(", level %d", s.Level)
	}
	if len(s.Stages) > 0 {
		out += ", stages " + strings.Join(s.Stages, ",")
	}
	return out
}

// meets reports whether the state meets a layer's include/exclude rule.
func (s NetState) meets(r *caffepb.NetStateRule) bool {
	if r.Phase != nil && Phase(r.GetPhase()) != s.Phase {
		return false
	}
	if r.MinLevel != nil && s.Level < int(r.GetMinLevel()) {
		return false
	}
	if r.MaxLevel != nil && s.Level > int(r.GetMaxLevel()) {
		return false
	}
	has := map[string]bool{}
	for _, st := range s.Stages {
		has[st] = true
	}
	for _, st := range r.Stage {
		if !has[st] {
			return false
		}
	}
	for _, st := range r.NotStage {
		if has[st] {
			return false
		}
	}
	return true
}

// Includes reports whether a net in this state has the layer, by the
// layer's include and exclude rules as Caffe filters nets: with include
// rules, when any of them is met; otherwise unless an exclude rule is met.
func (s NetState) Includes(l *caffepb.LayerParameter) bool {
	if len(l.Include) > 0 {
		for _, r := range l.Include {
			if s.meets(r) {
				return true
			}
		}
		return false
	}
	for _, r := range l.Exclude {
		if s.meets(r) {
			return false
		}
	}
	return true
}

// NetDef is a net definition processed for one NetState, as Caffe's Net
// would build it: layers filtered by their rules, Split layers inserted
// for blobs read more than once, parameter blobs resolved with their
// sharing and multipliers. It holds no data.
type NetDef struct {
	Name  string
	State NetState
	// ForceBackward is the net's force_backward setting.
	ForceBackward bool
	Layers        []*LayerDef
	// Params lists every parameter blob of every layer, in net order.
	Params []*ParamDef
	// Learnable lists the indices in Params of the parameters that own
	// their data (shared ones appear once, at their owner), in net order:
	// the order of Caffe's learnable_params, of solver history and of
	// gradient clipping.
	Learnable []int
	// Inputs are the tops of Input layers.
	Inputs []string
	// Outputs are the blobs produced and never read, sorted by name.
	Outputs []string
}

// LayerDef is one layer of a NetDef.
type LayerDef struct {
	Index int
	// Source is the layer's index in the definition's layer list, or -1
	// for an inserted Split layer.
	Source int
	Name   string
	Type   string
	// Param is the layer's definition as the built layer holds it (a copy
	// of the source): phase set, bottoms rewired to split outputs, a loss
	// layer's default loss_weight added, BatchNorm's param entries added.
	// Its blobs are those of the source definition.
	Param   *caffepb.LayerParameter
	Bottoms []string
	Tops    []string
	// AutoTops counts the tops at the end of Tops that the definition does
	// not name: a loss layer given fewer tops than it produces gets
	// anonymous ones, "(automatic)", as Caffe's AutoTopBlobs adds them.
	// No layer can read them and they are not outputs, but their loss
	// counts.
	AutoTops int
	// LossWeights has one weight per top; non-zero weights make the top
	// part of the net's loss.
	LossWeights []float32
	// Params indexes the layer's parameter blobs in NetDef.Params.
	Params []int
	// ParamsKnown is false when the number of parameter blobs cannot be
	// known from the definition (Python layers); Params then follows the
	// param entries given.
	ParamsKnown bool
	// Pos is where the layer was defined, when it came from a text file.
	Pos Position

	typ   LayerType // the registered type that makes and shapes the layer
	layer Layer     // made by typ.New to read its settings, never set up; nil without New
}

// ParamDef is one parameter blob of a layer.
type ParamDef struct {
	Layer int // index in NetDef.Layers
	Index int // index among the layer's parameter blobs
	// Name is the sharing name given in the layer's param entry ("" for
	// none). The first parameter with a name owns it; later ones share it.
	Name      string
	ShareMode caffepb.ParamSpec_DimCheckMode
	// Owner is the index in NetDef.Params of the parameter this one shares
	// data with, or -1 when it owns its data.
	Owner int
	// Learnable is this parameter's (or its owner's) index in
	// NetDef.Learnable.
	Learnable int
	// LrMult and DecayMult are the effective multipliers: those of the
	// learnable parameter, after every sharer's settings were applied.
	LrMult, DecayMult float32

	hasLr, hasDecay bool // whether a param entry set the multiplier
}

// layerError builds an error about a layer, naming where it was defined
// when known, else its index source in the definition (-1 if inserted).
func layerError(pos Position, source int, name, typ, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	who := fmt.Sprintf("layer %q", name)
	if !pos.IsValid() && source >= 0 {
		who = fmt.Sprintf("layer %d %q", source, name)
	}
	if typ != "" {
		who += " (" + typ + ")"
	}
	if pos.IsValid() {
		return &ParseError{Pos: pos, Msg: who + ": " + msg}
	}
	return fmt.Errorf("caffe: %s: %s", who, msg)
}

func (l *LayerDef) errorf(format string, args ...any) error {
	return layerError(l.Pos, l.Source, l.Name, l.Type, format, args...)
}

// ProcessNet builds the definition of the net np describes for state, as
// Caffe's Net does before it allocates anything:
//
//   - legacy definitions are upgraded (on a copy; np is not changed);
//   - layers are kept or dropped by their include/exclude rules (a layer
//     may have include or exclude rules, not both);
//   - a Split layer named <blob>_<layer>_<top>_split is inserted after
//     every top read by more than one bottom (a top with a non-zero
//     loss_weight counts as a reader), and the readers are rewired to its
//     tops <blob>_<layer>_<top>_split_<k>;
//   - every layer gets the phase of the state unless it sets its own;
//   - layer types and blob counts are checked, bottoms must name blobs
//     produced earlier, and a top may be produced twice only in place;
//   - loss weights are resolved (loss layers weigh their first top 1);
//   - parameter blobs get their ParamSpec, with sharing by name.
//
// state is used as given; NetStateOf(np) returns the state a definition
// asks for itself.
func ProcessNet(np *caffepb.NetParameter, state NetState) (*NetDef, error) {
	if np == nil {
		return nil, fmt.Errorf("caffe: ProcessNet: nil NetParameter")
	}
	if format.NetNeedsUpgrade(np) {
		up := format.CloneNet(np)
		if err := format.UpgradeNetParameter(up); err != nil {
			return nil, err
		}
		np = up
	}
	def := &NetDef{Name: np.GetName(), State: state, ForceBackward: np.GetForceBackward()}

	// Filter by the state's rules.
	var kept []*LayerDef
	excluded := map[string][]string{} // blob -> layers the state dropped that produce it
	for i, src := range np.GetLayer() {
		pos := format.LayerPos(src)
		if len(src.Include) > 0 && len(src.Exclude) > 0 {
			return nil, layerError(pos, i, src.GetName(), src.GetType(), "has both include and exclude rules; give one kind only")
		}
		if state.Includes(src) {
			kept = append(kept, &LayerDef{Param: proto.Clone(src).(*caffepb.LayerParameter), Pos: pos, Source: i})
		} else {
			for _, t := range src.Top {
				if by := excluded[t]; len(by) == 0 || by[len(by)-1] != src.GetName() {
					excluded[t] = append(by, src.GetName())
				}
			}
		}
	}

	layers, err := insertSplits(kept, excluded, state)
	if err != nil {
		return nil, err
	}
	def.Layers = layers

	available := map[string]bool{} // blobs produced and not yet read
	var produced []string          // every blob name, in order of creation
	exists := map[string]bool{}
	shareOwner := map[string]int{} // param name -> index in def.Params
	for i, l := range layers {
		l.Index = i
		lp := l.Param
		l.Name, l.Type = lp.GetName(), lp.GetType()
		l.Bottoms, l.Tops = lp.Bottom, lp.Top
		if lp.Phase == nil {
			lp.Phase = caffepb.Phase(state.Phase).Enum()
		}
		lt, err := layerTypeOf(lp)
		if err != nil {
			return nil, l.errorf("%s", strings.TrimPrefix(err.Error(), "caffe: "))
		}
		l.typ = lt
		if !lt.Bottoms.Allows(len(l.Bottoms)) {
			return nil, l.errorf("takes %v bottom blobs, has %d", lt.Bottoms, len(l.Bottoms))
		}
		if lt.Loss && lt.Tops.checked && len(l.Tops) < lt.Tops.min {
			// Caffe's AutoTopBlobs: a loss layer written without its top
			// (as many older nets are) gets an anonymous one.
			l.Tops = slices.Clone(l.Tops)
			for len(l.Tops) < lt.Tops.min {
				name := "(automatic)"
				for k := 1; exists[name]; k++ {
					name = fmt.Sprintf("(automatic)_%d", k)
				}
				exists[name] = true
				l.Tops = append(l.Tops, name)
				l.AutoTops++
			}
		}
		if !lt.Tops.Allows(len(l.Tops)) {
			return nil, l.errorf("takes %v top blobs, has %d", lt.Tops, len(l.Tops))
		}
		if len(lp.PropagateDown) > 0 && len(lp.PropagateDown) != len(l.Bottoms) {
			return nil, l.errorf("propagate_down must be given 0 times or once per bottom (%d), not %d times", len(l.Bottoms), len(lp.PropagateDown))
		}

		// Bottoms consume available blobs; tops make new ones or, in
		// place, reuse their bottom.
		for j, b := range l.Bottoms {
			if !available[b] {
				if exists[b] {
					return nil, l.errorf("bottom %d, blob %q, was already read by an earlier layer", j, b)
				}
				return nil, l.errorf("unknown bottom blob %q%s; blobs available: %s", b, format.DidYouMean(b, produced), availableList(produced, available))
			}
			delete(available, b)
		}
		for j, t := range l.Tops[:len(l.Tops)-l.AutoTops] {
			inPlace := j < len(l.Bottoms) && l.Bottoms[j] == t
			if exists[t] && !inPlace {
				return nil, l.errorf("top blob %q is produced by more than one layer (only in-place layers, whose top j equals bottom j, may reuse a name)", t)
			}
			if !exists[t] {
				exists[t] = true
				produced = append(produced, t)
			}
			available[t] = true
		}
		if l.Type == "Input" {
			def.Inputs = append(def.Inputs, l.Tops...)
		}

		if err := resolveLossWeights(l, lt); err != nil {
			return nil, err
		}
		if err := l.makeLayer(); err != nil {
			return nil, err
		}
		n, known, err := l.countParams()
		if err != nil {
			return nil, err
		}
		if err := resolveParams(def, l, shareOwner, n, known); err != nil {
			return nil, err
		}
	}
	def.shareMultipliers()
	for b := range available {
		def.Outputs = append(def.Outputs, b)
	}
	sort.Strings(def.Outputs)
	return def, nil
}

// shareMultipliers gives sharers the multipliers of the parameter they
// share.
func (d *NetDef) shareMultipliers() {
	for _, p := range d.Params {
		if p.Owner >= 0 {
			o := d.Params[p.Owner]
			p.LrMult, p.DecayMult = o.LrMult, o.DecayMult
		}
	}
}

// withParamCounts returns the definition with its parameters resolved
// again for the given number of parameter blobs per layer, as set-up
// layers whose count was not known beforehand report it; d itself when
// nothing changes.
func (d *NetDef) withParamCounts(counts []int) (*NetDef, error) {
	same := true
	for i, l := range d.Layers {
		same = same && counts[i] == len(l.Params)
	}
	if same {
		return d, nil
	}
	c := *d
	c.Params, c.Learnable = nil, nil
	c.Layers = make([]*LayerDef, len(d.Layers))
	shareOwner := map[string]int{}
	for i, l := range d.Layers {
		cl := *l
		cl.Params = nil
		c.Layers[i] = &cl
		if err := resolveParams(&c, &cl, shareOwner, counts[i], l.ParamsKnown); err != nil {
			return nil, err
		}
	}
	c.shareMultipliers()
	return &c, nil
}

func availableList(produced []string, available map[string]bool) string {
	var names []string
	for _, b := range produced {
		if available[b] {
			names = append(names, b)
		}
	}
	if len(names) == 0 {
		return "none (no earlier layer produces a blob that is still unread)"
	}
	return strings.Join(names, ", ")
}

// insertSplits adds Split layers after tops read more than once, with
// Caffe's names, rewiring the readers. A top with a non-zero loss_weight
// counts as one reader and keeps its weight on the split's first top.
func insertSplits(layers []*LayerDef, excluded map[string][]string, state NetState) ([]*LayerDef, error) {
	type topRef struct{ layer, top int }
	lastTop := map[string]topRef{}
	source := map[[2]int]topRef{} // (layer, bottom) -> producing top
	readers := map[topRef]int{}
	lossWeight := map[topRef]float32{}
	var seen []string
	for i, l := range layers {
		lp := l.Param
		for j, b := range lp.Bottom {
			ref, ok := lastTop[b]
			if !ok {
				if by := excluded[b]; len(by) > 0 {
					return nil, layerError(l.Pos, l.Source, lp.GetName(), lp.GetType(),
						"bottom blob %q is produced only by layers the net state (%s) leaves out: %s; check their include/exclude rules or the state",
						b, state, strings.Join(by, ", "))
				}
				return nil, layerError(l.Pos, l.Source, lp.GetName(), lp.GetType(), "unknown bottom blob %q (bottom %d)%s; blobs produced before it: %s",
					b, j, format.DidYouMean(b, seen), orNone(seen))
			}
			source[[2]int{i, j}] = ref
			readers[ref]++
		}
		for j, t := range lp.Top {
			if _, ok := lastTop[t]; !ok {
				seen = append(seen, t)
			}
			lastTop[t] = topRef{i, j}
		}
		for j := 0; j < len(lp.LossWeight) && j < len(lp.Top); j++ {
			ref := lastTop[lp.Top[j]]
			lossWeight[ref] = lp.LossWeight[j]
			if lp.LossWeight[j] != 0 {
				readers[ref]++
			}
		}
	}
	var out []*LayerDef
	splitIndex := map[topRef]int{}
	for i, l := range layers {
		lp := l.Param
		out = append(out, l)
		for j := range lp.Bottom {
			ref := source[[2]int{i, j}]
			if readers[ref] > 1 {
				producer := layers[ref.layer].Param.GetName()
				lp.Bottom[j] = splitBlobName(producer, lp.Bottom[j], ref.top, splitIndex[ref])
				splitIndex[ref]++
			}
		}
		for j, t := range lp.Top {
			ref := topRef{i, j}
			n := readers[ref]
			if n <= 1 {
				continue
			}
			w := lossWeight[ref]
			split := &caffepb.LayerParameter{
				Name:   proto.String(splitLayerName(lp.GetName(), t, j)),
				Type:   proto.String("Split"),
				Bottom: []string{t},
			}
			for k := 0; k < n; k++ {
				split.Top = append(split.Top, splitBlobName(lp.GetName(), t, j, k))
				if w != 0 {
					if k == 0 {
						split.LossWeight = append(split.LossWeight, w)
					} else {
						split.LossWeight = append(split.LossWeight, 0)
					}
				}
			}
			if w != 0 {
				lp.LossWeight = nil
				splitIndex[ref]++
			}
			out = append(out, &LayerDef{Param: split, Source: -1, Pos: l.Pos})
		}
	}
	return out, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func splitLayerName(layer, blob string, top int) string {
	return fmt.Sprintf("%s_%s_%d_split", blob, layer, top)
}

func splitBlobName(layer, blob string, top, k int) string {
	return fmt.Sprintf("%s_%s_%d_split_%d", blob, layer, top, k)
}

// resolveLossWeights applies a loss layer's default weight and checks the
// count.
func resolveLossWeights(l *LayerDef, lt LayerType) error {
	lp := l.Param
	if lt.Loss && len(lp.LossWeight) == 0 {
		lp.LossWeight = []float32{1}
	}
	l.LossWeights = make([]float32, len(l.Tops))
	if len(lp.LossWeight) == 0 {
		return nil
	}
	if len(lp.LossWeight) != len(l.Tops) {
		return l.errorf("loss_weight must be given 0 times or once per top (%d tops), not %d times", len(l.Tops), len(lp.LossWeight))
	}
	copy(l.LossWeights, lp.LossWeight)
	return nil
}

// makeLayer makes the layer from its definition, to read its settings
// (it is never set up; a net makes its own).
func (l *LayerDef) makeLayer() error {
	if l.typ.New == nil {
		return nil
	}
	env := &LayerEnv{Phase: l.Param.GetPhase(), Threads: 1}
	err := safeLayerCall(l, func() (err error) {
		l.layer, err = l.typ.New(l.Param, env)
		if err == nil && l.layer == nil {
			err = errors.New("the constructor returned no layer")
		}
		return err
	})
	if err != nil {
		return l.errorf("%s", strings.TrimPrefix(err.Error(), "caffe: "))
	}
	return nil
}

// countParams returns how many parameter blobs the layer has, from its
// type's shape rule run on unknown bottoms, and whether that is known
// before the layer is set up: without a rule, the count is that of the
// definition's param entries until a net sets the layer up.
func (l *LayerDef) countParams() (int, bool, error) {
	if l.typ.Shape == nil {
		return len(l.Param.Param), false, nil
	}
	c, err := l.inferShapes(make([]Shape, len(l.Bottoms)))
	if err != nil {
		return 0, false, err
	}
	return len(c.Params), true, nil
}

func resolveParams(def *NetDef, l *LayerDef, shareOwner map[string]int, n int, known bool) error {
	lp := l.Param
	l.ParamsKnown = known
	if len(lp.Param) > n {
		return l.errorf("has %d param entries but only %d parameter blobs", len(lp.Param), n)
	}
	if l.typ.NotLearned {
		// The blobs hold statistics the layer keeps, not learned weights:
		// they get lr_mult 0, and a non-zero one is refused.
		for i := 0; i < n; i++ {
			if i == len(lp.Param) {
				lp.Param = append(lp.Param, &caffepb.ParamSpec{LrMult: proto.Float32(0)})
			} else if lp.Param[i].GetLrMult() != 0 {
				return l.errorf("param %d has lr_mult %g; %s statistics cannot be learned, set lr_mult: 0", i, lp.Param[i].GetLrMult(), l.Type)
			}
		}
	}
	for i := 0; i < n; i++ {
		spec := &caffepb.ParamSpec{}
		if i < len(lp.Param) && lp.Param[i] != nil {
			spec = lp.Param[i]
		}
		p := &ParamDef{
			Layer:     l.Index,
			Index:     i,
			Name:      spec.GetName(),
			ShareMode: spec.GetShareMode(),
			Owner:     -1,
		}
		id := len(def.Params)
		def.Params = append(def.Params, p)
		l.Params = append(l.Params, id)
		owner, shared := shareOwner[p.Name]
		if p.Name == "" || !shared {
			if p.Name != "" {
				shareOwner[p.Name] = id
			}
			p.Learnable = len(def.Learnable)
			def.Learnable = append(def.Learnable, id)
			p.LrMult, p.DecayMult = spec.GetLrMult(), spec.GetDecayMult()
			p.hasLr, p.hasDecay = spec.LrMult != nil, spec.DecayMult != nil
			continue
		}
		p.Owner = owner
		o := def.Params[owner]
		p.Learnable = o.Learnable
		ownerLayer := def.Layers[o.Layer].Name
		if spec.LrMult != nil {
			if o.hasLr && spec.GetLrMult() != o.LrMult {
				return l.errorf("shared param %q has lr_mult %g here but %g in layer %q; give sharers the same lr_mult",
					p.Name, spec.GetLrMult(), o.LrMult, ownerLayer)
			}
			o.LrMult, o.hasLr = spec.GetLrMult(), true
		}
		if spec.DecayMult != nil {
			if o.hasDecay && spec.GetDecayMult() != o.DecayMult {
				return l.errorf("shared param %q has decay_mult %g here but %g in layer %q; give sharers the same decay_mult",
					p.Name, spec.GetDecayMult(), o.DecayMult, ownerLayer)
			}
			o.DecayMult, o.hasDecay = spec.GetDecayMult(), true
		}
	}
	return nil
}

// Layer returns the first layer called name, or nil.
func (d *NetDef) Layer(name string) *LayerDef {
	for _, l := range d.Layers {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// Proto returns the net as Caffe's Net::ToProto writes it into a
// .caffemodel: the name and every built layer's definition (splits
// included), with blobs taken from weights by layer name (a layer absent
// from weights gets none), written with the shape field. The arrays' data
// is copied.
func (d *NetDef) Proto(weights map[string][]*ndarray.Array) *caffepb.NetParameter {
	np := &caffepb.NetParameter{Name: proto.String(d.Name)}
	for _, l := range d.Layers {
		lp := proto.Clone(l.Param).(*caffepb.LayerParameter)
		lp.Blobs = nil
		for _, w := range weights[l.Name] {
			lp.Blobs = append(lp.Blobs, BlobFromArray(w))
		}
		np.Layer = append(np.Layer, lp)
	}
	return np
}
