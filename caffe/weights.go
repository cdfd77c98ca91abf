package caffe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
	"github.com/sparknet-go/sparknet/caffe/format"
	"github.com/sparknet-go/sparknet/ndarray"
)

// ArrayFromBlob returns a new array with b's shape (legacy dimensions kept
// as four axes) and a copy of its values.
func ArrayFromBlob(b *caffepb.BlobProto) (*ndarray.Array, error) {
	if _, err := format.CheckBlob(b); err != nil {
		return nil, err
	}
	a := ndarray.New(BlobShape(b)...)
	if err := format.CopyBlobData(a.Data(), b); err != nil {
		return nil, err
	}
	return a, nil
}

// BlobFromArray returns a BlobProto holding a copy of a's values, with
// the shape field (never the legacy dimensions), as Caffe writes blobs.
func BlobFromArray(a *ndarray.Array) *caffepb.BlobProto {
	shape := a.Shape()
	dims := make([]int64, len(shape))
	for i, d := range shape {
		dims[i] = int64(d)
	}
	data := append([]float32(nil), a.Contiguous().Data()...)
	return &caffepb.BlobProto{Shape: &caffepb.BlobShape{Dim: dims}, Data: data}
}

// ModelWeights returns the blobs of every layer of a net with weights (a
// .caffemodel) as arrays, by layer name, in their stored shapes. When
// names repeat, the first layer wins, as in CopyWeights.
func ModelWeights(model *caffepb.NetParameter) (map[string][]*ndarray.Array, error) {
	out := map[string][]*ndarray.Array{}
	for _, l := range model.GetLayer() {
		if _, dup := out[l.GetName()]; dup {
			continue
		}
		arrays := make([]*ndarray.Array, 0, len(l.Blobs))
		for i, b := range l.Blobs {
			a, err := ArrayFromBlob(b)
			if err != nil {
				return nil, fmt.Errorf("%w (blob %d of layer %q)", err, i, l.GetName())
			}
			arrays = append(arrays, a)
		}
		out[l.GetName()] = arrays
	}
	return out, nil
}

// CopyReport tells what CopyWeights did.
type CopyReport struct {
	// Copied lists the layers whose blobs were copied, in the source's
	// order.
	Copied []string
	// Ignored lists source layers with blobs but no destination of that
	// name (Caffe ignores them too).
	Ignored []string
	// Kept lists destination layers with parameters that the source does
	// not have; their arrays are left as they were.
	Kept []string
}

// Err returns an error when a copy from the weights file path matched
// nothing: the net has layers with parameters but no layer of the file
// has one of their names, so the net would run with the values its fillers
// gave (random weights). It returns nil when anything was copied or the
// net has no parameters.
func (r *CopyReport) Err(path string) error {
	if len(r.Copied) > 0 || len(r.Kept) == 0 {
		return nil
	}
	have := "it holds no layer with weights"
	if len(r.Ignored) > 0 {
		have = "its layers with weights are " + shortList(r.Ignored)
	}
	return fmt.Errorf("caffe: %s has no weights for this net: the net's layers with parameters are %s; %s", path, shortList(r.Kept), have)
}

// shortList joins names for a message, eliding all but the first few.
func shortList(names []string) string {
	const most = 8
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}

// CopyWeights copies the blobs of a net with weights (an upgraded
// .caffemodel, as ReadCaffemodel returns) into dst, the parameter arrays
// of a net by layer name, as Caffe's CopyTrainedLayersFrom does: source
// layers are matched to destination layers by name only (the type is not
// checked); a layer must have as many blobs as the destination has arrays,
// and each blob must pass format.ShapeEquals (so legacy 4-D blobs load into their
// current shapes). Everything is checked before anything is copied, so on
// error dst is unchanged; the error names the layer and both shapes.
func CopyWeights(model *caffepb.NetParameter, dst map[string][]*ndarray.Array) (*CopyReport, error) {
	type job struct {
		dst *ndarray.Array
		src *caffepb.BlobProto
	}
	var jobs []job
	report := &CopyReport{}
	done := map[string]bool{}
	for _, l := range model.GetLayer() {
		name := l.GetName()
		arrays, ok := dst[name]
		if !ok {
			if len(l.Blobs) > 0 {
				report.Ignored = append(report.Ignored, name)
			}
			continue
		}
		if len(arrays) != len(l.Blobs) {
			return nil, fmt.Errorf("caffe: cannot copy weights of layer %q: the weights have %d blobs, the net's layer has %d parameters",
				name, len(l.Blobs), len(arrays))
		}
		for i, b := range l.Blobs {
			a := arrays[i]
			if !format.ShapeEquals(b, a.Shape()) {
				return nil, fmt.Errorf("caffe: cannot copy blob %d of layer %q: the weights have shape %s, the net's parameter has shape %s; to learn this layer from scratch instead, rename it",
					i, name, format.DescribeBlobShape(b), fmt.Sprint(a.Shape()))
			}
			if _, err := format.CheckBlob(b); err != nil {
				return nil, fmt.Errorf("%w (blob %d of layer %q)", err, i, name)
			}
			if !a.IsContiguous() {
				return nil, fmt.Errorf("caffe: cannot copy blob %d of layer %q: the destination array is not contiguous", i, name)
			}
			jobs = append(jobs, job{a, b})
		}
		if len(l.Blobs) > 0 && !done[name] {
			report.Copied = append(report.Copied, name)
		}
		done[name] = true
	}
	for _, j := range jobs {
		if err := format.CopyBlobData(j.dst.Data(), j.src); err != nil {
			return nil, err // not reached: checked above
		}
	}
	for name, arrays := range dst {
		if len(arrays) > 0 && !done[name] {
			report.Kept = append(report.Kept, name)
		}
	}
	sort.Strings(report.Kept)
	return report, nil
}

// NewParamArrays allocates zero-filled arrays for every parameter blob of
// a processed net, by layer name, in the shapes InferShapes found. Layers
// without parameters get an empty list, so CopyWeights reports a source
// layer with blobs for them as Caffe does. A parameter shared by name uses
// its owner's array (reshaped when the sharing is PERMISSIVE). When layer
// names repeat, the first layer wins.
func NewParamArrays(def *NetDef, shapes *Shapes) (map[string][]*ndarray.Array, error) {
	out := map[string][]*ndarray.Array{}
	byParam := make([]*ndarray.Array, len(def.Params))
	for i, l := range def.Layers {
		arrays := []*ndarray.Array{}
		for k, id := range l.Params {
			p := def.Params[id]
			shape := shapes.Layers[i].Params[k]
			if !shape.Known() {
				return nil, l.errorf("the shape of parameter %d is unknown; give the shapes of the net's inputs", k)
			}
			var a *ndarray.Array
			if p.Owner >= 0 {
				a = byParam[p.Owner]
				if !intsEqual(a.Shape(), shape) {
					a = a.Reshape(shape...)
				}
			} else {
				a = ndarray.New(shape...)
			}
			byParam[id] = a
			arrays = append(arrays, a)
		}
		if _, dup := out[l.Name]; !dup {
			out[l.Name] = arrays
		}
	}
	return out, nil
}

func intsEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
