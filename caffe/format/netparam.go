package format

import (
	"errors"
	"fmt"

	"github.com/sparknet-go/sparknet/caffe/caffepb"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// LoadNetParameter reads a net definition (.prototxt) and upgrades it to
// the current format, as Caffe's ReadNetParamsFromTextFile does. Errors
// name file:line:col, and the positions of the layers are remembered, so
// later errors about a layer (from ProcessNet, InferShapes) name them too.
func LoadNetParameter(path string) (*caffepb.NetParameter, error) {
	src, err := fsio.ReadFile(path, fsio.TextLimit)
	if err != nil {
		return nil, fmt.Errorf("caffe: %w", err)
	}
	return ParseNetParameter(path, src)
}

// ParseNetParameter parses a net definition in text format and upgrades it
// to the current format. name labels positions in errors.
func ParseNetParameter(name string, src []byte) (*caffepb.NetParameter, error) {
	np := &caffepb.NetParameter{}
	rec := newSourceRecorder()
	if err := parseText(name, src, np, rec.hook); err != nil {
		return nil, err
	}
	rec.commit()
	if err := UpgradeNetParameter(np); err != nil {
		return nil, inFile(err, name)
	}
	return np, nil
}

// ParseSolverParameter parses a solver definition in text format, upgrades
// the deprecated solver_type and the inline nets, and leaves net paths as
// they are. name labels positions in errors.
func ParseSolverParameter(name string, src []byte) (*caffepb.SolverParameter, error) {
	sp := &caffepb.SolverParameter{}
	rec := newSourceRecorder()
	if err := parseText(name, src, sp, rec.hook); err != nil {
		return nil, err
	}
	rec.commit()
	if err := UpgradeSolverParameter(sp); err != nil {
		return nil, inFile(err, name)
	}
	nets := append([]*caffepb.NetParameter{sp.NetParam, sp.TrainNetParam}, sp.TestNetParam...)
	for _, np := range nets {
		if np == nil {
			continue
		}
		if err := UpgradeNetParameter(np); err != nil {
			return nil, inFile(err, name)
		}
	}
	return sp, nil
}

// inFile adds the file's name to an error that does not name a position in
// it already.
func inFile(err error, name string) error {
	var pe *ParseError
	if errors.As(err, &pe) && pe.Pos.File != "" {
		return err
	}
	return fmt.Errorf("%w (in %s)", err, name)
}
