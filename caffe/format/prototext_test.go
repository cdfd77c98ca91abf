package format

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sparknet-go/sparknet/caffe/caffepb"
)

// ParseText follows C++ protobuf's text parser, which is what Caffe reads
// files with; google.golang.org/protobuf/encoding/prototext is the
// reference for what is valid. The two agree on every input except in the
// cases below, where the Go parser differs from the C++ one and ParseText
// takes Caffe's side. The package documentation lists the same cases.
type textDifference struct {
	name    string
	doc     string
	example string // a TransformationParameter or NetParameter field
	// excuses reports whether a disagreement on src is this difference:
	// ours and theirs are the two parsers' errors, theirMsg what prototext
	// read when it accepted src.
	excuses func(src []byte, ours, theirs error, theirMsg proto.Message) bool
}

var textDifferences = []textDifference{
	{
		name:    "undefined enum number",
		doc:     "an enum field given a number that names no value: Caffe refuses it (proto2 enums are closed), prototext keeps the number",
		example: "state { phase: 7 }",
		excuses: func(_ []byte, ours, theirs error, theirMsg proto.Message) bool {
			return theirs == nil && errContains(ours, "unknown value") && hasUndefinedEnum(theirMsg.ProtoReflect())
		},
	},
	{
		name:    "octal or hex for a float",
		doc:     "an integer with a leading 0 or 0x for a float field: Caffe refuses it (\"expect a decimal number\"), prototext reads 010 as ten and 0x10 as sixteen",
		example: "scale: 010",
		excuses: func(_ []byte, ours, theirs error, _ proto.Message) bool {
			return theirs == nil && errContains(ours, "expected a decimal number")
		},
	},
	{
		name:    "non-UTF-8 string",
		doc:     "bytes in a string literal that are not UTF-8: Caffe keeps them, prototext refuses them",
		example: "mean_file: \"caf\xe9\"",
		excuses: func(_ []byte, ours, theirs error, _ proto.Message) bool {
			return ours == nil && errContains(theirs, "invalid UTF-8")
		},
	},
	{
		name:    "octal escape past 377",
		doc:     "an octal escape past \\377: Caffe keeps its low eight bits, prototext refuses it",
		example: `mean_file: "\400"`,
		excuses: func(_ []byte, ours, theirs error, _ proto.Message) bool {
			return ours == nil && errContains(theirs, "invalid octal escape")
		},
	},
	{
		name:    "lone surrogate",
		doc:     "a \\u escape of an unpaired surrogate, or a \\U escape past U+10FFFF: Caffe encodes the surrogate as it is and keeps the escape text, prototext refuses both",
		example: `mean_file: "\ud800 and \U00110000"`,
		excuses: func(src []byte, ours, theirs error, _ proto.Message) bool {
			return ours == nil && (errContains(theirs, "invalid Unicode escape") ||
				errContains(theirs, "unexpected EOF") && (bytes.Contains(src, []byte(`\u`)) || bytes.Contains(src, []byte(`\U`))))
		},
	},
	{
		name:    "spaced minus before inf",
		doc:     "-nan, and a minus sign parted from inf or nan by space or a comment: Caffe reads them, prototext refuses them",
		example: "scale: - inf mean_value: -nan",
		excuses: func(_ []byte, ours, theirs error, _ proto.Message) bool {
			return ours == nil && (errContains(theirs, "invalid scalar value: -") || errContains(theirs, "invalid value for float type: -nan"))
		},
	},
	{
		// Handled by normalizeSpace rather than an excuse, so that the
		// messages are still compared.
		name:    "vertical tab and form feed",
		doc:     "vertical tab and form feed between tokens: Caffe takes them as white space, prototext refuses them",
		example: "scale: 1\fmirror: true\v",
	},
}

func errContains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// hasUndefinedEnum reports whether m holds an enum number its enum does not
// define, at any depth.
func hasUndefinedEnum(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		check := func(v protoreflect.Value) {
			switch {
			case fd.Enum() != nil:
				found = found || fd.Enum().Values().ByNumber(v.Enum()) == nil
			case fd.Message() != nil:
				found = found || hasUndefinedEnum(v.Message())
			}
		}
		if fd.IsList() {
			for i := 0; i < v.List().Len(); i++ {
				check(v.List().Get(i))
			}
		} else {
			check(v)
		}
		return !found
	})
	return found
}

// normalizeSpace replaces vertical tabs and form feeds outside string
// literals and comments with spaces, so that prototext reads white space
// where Caffe does.
func normalizeSpace(src []byte) []byte {
	if !bytes.ContainsAny(src, "\v\f") {
		return src
	}
	out := bytes.Clone(src)
	var quote byte
	comment := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case comment:
			comment = c != '\n'
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote || c == '\n' {
				quote = 0
			}
		case c == '#':
			comment = true
		case c == '"' || c == '\'':
			quote = c
		case c == '\v' || c == '\f':
			out[i] = ' '
		}
	}
	return out
}

// agreeWithPrototext parses src as a newMsg() with ParseText and with
// prototext and describes how they disagree, or returns "" when they agree
// (both refuse src, or both read the same message) or disagree in one of
// the documented ways.
func agreeWithPrototext(src []byte, newMsg func() proto.Message) string {
	ours, theirs := newMsg(), newMsg()
	oursErr := ParseText("input", src, ours)
	theirsErr := prototext.Unmarshal(normalizeSpace(src), theirs)
	for _, d := range textDifferences {
		if d.excuses != nil && d.excuses(src, oursErr, theirsErr, theirs) {
			return ""
		}
	}
	switch {
	case oursErr != nil && theirsErr != nil:
		return ""
	case oursErr != nil:
		return fmt.Sprintf("ParseText refuses what prototext reads: %v", oursErr)
	case theirsErr != nil:
		return fmt.Sprintf("ParseText reads what prototext refuses: %v", theirsErr)
	case !proto.Equal(ours, theirs) && !(hasNaNField(ours.ProtoReflect()) && prototext.Format(ours) == prototext.Format(theirs)):
		return fmt.Sprintf("the messages differ:\nParseText: %v\nprototext: %v", ours, theirs)
	}
	return ""
}

// hasNaNField reports whether m holds a NaN anywhere, which makes
// proto.Equal false even between identical messages.
func hasNaNField(m protoreflect.Message) bool {
	return strings.Contains(prototext.Format(m.Interface()), "nan")
}

var textMessageTypes = []func() proto.Message{
	func() proto.Message { return &caffepb.NetParameter{} },
	func() proto.Message { return &caffepb.SolverParameter{} },
}

// repositoryPrototxts lists every .prototxt file in the repository and in
// the shared folder of Caffe files beside it, when that is present.
func repositoryPrototxts(t testing.TB) []string {
	t.Helper()
	roots := []string{filepath.Join("..", "..")}
	if dir := filepath.Join("..", "..", "..", "shared", "caffe-models"); dirExists(dir) {
		roots = append(roots, dir)
	}
	var files []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz") {
				return filepath.SkipDir
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".prototxt") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d .prototxt files", len(files))
	}
	return files
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// Every .prototxt in the repository parses, as a net or a solver, and both
// parsers agree on it as either type.
func TestParseTextAgreesWithPrototextOnRepositoryFiles(t *testing.T) {
	for _, path := range repositoryPrototxts(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		parsed := false
		for _, newMsg := range textMessageTypes {
			if diff := agreeWithPrototext(src, newMsg); diff != "" {
				t.Errorf("%s as %T: %s", path, newMsg(), diff)
			}
			parsed = parsed || ParseText(path, src, newMsg()) == nil
		}
		if !parsed {
			t.Errorf("%s parses neither as a net nor as a solver", path)
		}
	}
}

// Each documented difference still holds: its example is one that the two
// parsers treat differently, in the way described.
func TestParseTextDifferencesFromPrototext(t *testing.T) {
	for _, d := range textDifferences {
		t.Run(d.name, func(t *testing.T) {
			for _, newMsg := range []func() proto.Message{
				func() proto.Message { return &caffepb.TransformationParameter{} },
				func() proto.Message { return &caffepb.NetParameter{} },
			} {
				ours, theirs := newMsg(), newMsg()
				oursErr := ParseText("input", []byte(d.example), ours)
				theirsErr := prototext.Unmarshal([]byte(d.example), theirs)
				if (oursErr == nil) == (theirsErr == nil) {
					continue // the example is for the other message type
				}
				if d.excuses == nil {
					if theirsErr := prototext.Unmarshal(normalizeSpace([]byte(d.example)), theirs); theirsErr != nil || !proto.Equal(ours, theirs) {
						t.Errorf("normalized, prototext still differs: %v", theirsErr)
					}
				} else if !d.excuses([]byte(d.example), oursErr, theirsErr, theirs) {
					t.Errorf("the difference is not the documented one: ParseText %v, prototext %v", oursErr, theirsErr)
				}
				return
			}
			t.Errorf("the parsers agree on %q", d.example)
		})
	}
}

// FuzzParseTextAgreesWithPrototext feeds the same input to ParseText and to
// prototext, as a net and as a solver: they must accept the same inputs and
// read the same messages, but for the documented differences.
func FuzzParseTextAgreesWithPrototext(f *testing.F) {
	for _, path := range repositoryPrototxts(f) {
		if src, err := os.ReadFile(path); err == nil && len(src) < 4096 {
			f.Add(src)
		}
	}
	for _, d := range textDifferences {
		f.Add([]byte(d.example))
	}
	f.Add([]byte("layer { name: 'a' type: \"Convolution\" param { lr_mult: 10.5 decay_mult: 250. } convolution_param { num_output: 0x10 pad: 01 } include { phase: TEST } }"))
	f.Add([]byte("base_lr: 1e-2f weight_decay: .0005 clip_gradients: 35.0 solver_type: ADAM momentum: -inf test_iter: [1, 2] snapshot_prefix: 'a\\x41\\101\\u00e9\\n'"))
	f.Add([]byte("state < phase: 1 stage: \"a\" \"b\" > force_backward: t; debug_info: 0, layer []"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, newMsg := range textMessageTypes {
			if diff := agreeWithPrototext(src, newMsg); diff != "" {
				t.Fatalf("%T: %s", newMsg(), diff)
			}
		}
	})
}
