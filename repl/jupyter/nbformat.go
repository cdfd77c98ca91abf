package jupyter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sparknet-go/sparknet/internal/fsio"
)

// Notebook is a Jupyter notebook in nbformat 4.
type Notebook struct {
	Cells         []*Cell
	Metadata      map[string]any
	NBFormat      int
	NBFormatMinor int
}

// Cell is a cell of a notebook.
type Cell struct {
	ID       string
	Type     string // "code", "markdown" or "raw"
	Source   string
	Metadata map[string]any
	// ExecutionCount and Outputs belong to code cells; a nil count is
	// "not run".
	ExecutionCount *int
	Outputs        []Output
	// Attachments of a markdown cell, kept as they were read.
	Attachments json.RawMessage
}

// Output is one output of a code cell, as nbformat stores it:
// output_type "stream" (name, text), "display_data" (data, metadata),
// "execute_result" (also execution_count) or "error" (ename, evalue,
// traceback).
type Output map[string]any

// NewNotebook returns an empty nbformat 4.5 notebook with metadata for the
// kernelspec and language.
func NewNotebook(kernelName, displayName string, language map[string]any) *Notebook {
	return &Notebook{
		NBFormat:      4,
		NBFormatMinor: 5,
		Metadata: map[string]any{
			"kernelspec":    map[string]any{"name": kernelName, "display_name": displayName, "language": language["name"]},
			"language_info": language,
		},
	}
}

// ReadNotebook reads the notebook at path. Its errors name the file, and
// for bad JSON the line and column.
func ReadNotebook(path string) (*Notebook, error) {
	b, err := fsio.ReadFile(path, fsio.TextLimit)
	if err != nil {
		return nil, fmt.Errorf("jupyter: %w", err)
	}
	nb, err := ParseNotebook(b)
	if err != nil {
		return nil, fmt.Errorf("jupyter: notebook %s%w", path, err)
	}
	return nb, nil
}

// ParseNotebook parses the JSON of a notebook. Its errors start with the
// position (":3:7: ...") or ": ".
func ParseNotebook(b []byte) (*Notebook, error) {
	var raw struct {
		Cells []struct {
			ID             string          `json:"id"`
			CellType       string          `json:"cell_type"`
			Source         json.RawMessage `json:"source"`
			Metadata       map[string]any  `json:"metadata"`
			ExecutionCount *int            `json:"execution_count"`
			Outputs        []Output        `json:"outputs"`
			Attachments    json.RawMessage `json:"attachments"`
		} `json:"cells"`
		Metadata      map[string]any `json:"metadata"`
		NBFormat      *int           `json:"nbformat"`
		NBFormatMinor int            `json:"nbformat_minor"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(b, err)
	}
	if raw.NBFormat == nil {
		return nil, fmt.Errorf(": no nbformat field; not a Jupyter notebook")
	}
	if *raw.NBFormat != 4 {
		return nil, fmt.Errorf(": nbformat %d is not supported; want 4 (jupyter nbconvert --to notebook --nbformat 4 converts older notebooks)", *raw.NBFormat)
	}
	nb := &Notebook{Metadata: raw.Metadata, NBFormat: 4, NBFormatMinor: raw.NBFormatMinor}
	if nb.Metadata == nil {
		nb.Metadata = map[string]any{}
	}
	for i, rc := range raw.Cells {
		src, err := multiline(rc.Source)
		if err != nil {
			return nil, fmt.Errorf(": cell %d: source: %v", i+1, err)
		}
		switch rc.CellType {
		case "code", "markdown", "raw":
		default:
			return nil, fmt.Errorf(": cell %d: cell_type %q; want code, markdown or raw", i+1, rc.CellType)
		}
		nb.Cells = append(nb.Cells, &Cell{ID: rc.ID, Type: rc.CellType, Source: src, Metadata: rc.Metadata,
			ExecutionCount: rc.ExecutionCount, Outputs: rc.Outputs, Attachments: rc.Attachments})
	}
	return nb, nil
}

// multiline decodes nbformat's multiline string: a string or a list of
// strings to join.
func multiline(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("want a string or a list of strings")
	}
	return strings.Join(parts, ""), nil
}

// Lines splits text the way nbformat stores multiline strings: lines
// that keep their newline, the last without one.
func Lines(text string) []string {
	if text == "" {
		return []string{}
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Marshal returns the notebook's JSON as Jupyter writes it: keys sorted,
// indented by one space, with a final newline.
func (nb *Notebook) Marshal() ([]byte, error) {
	cells := make([]map[string]any, 0, len(nb.Cells))
	for _, c := range nb.Cells {
		meta := c.Metadata
		if meta == nil {
			meta = map[string]any{}
		}
		m := map[string]any{"cell_type": c.Type, "metadata": meta, "source": Lines(c.Source)}
		if c.ID != "" {
			m["id"] = c.ID
		}
		if c.Type == "code" {
			outs := c.Outputs
			if outs == nil {
				outs = []Output{}
			}
			m["outputs"] = outs
			if c.ExecutionCount != nil {
				m["execution_count"] = *c.ExecutionCount
			} else {
				m["execution_count"] = nil
			}
		}
		if len(c.Attachments) > 0 && c.Type != "code" {
			m["attachments"] = c.Attachments
		}
		cells = append(cells, m)
	}
	doc := map[string]any{"cells": cells, "metadata": nb.Metadata, "nbformat": nb.NBFormat, "nbformat_minor": nb.NBFormatMinor}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("jupyter: encoding a notebook: %w", err)
	}
	return b.Bytes(), nil
}

// WriteFile writes the notebook to path, through a temporary file renamed
// into place.
func (nb *Notebook) WriteFile(path string) error {
	b, err := nb.Marshal()
	if err != nil {
		return err
	}
	if err := fsio.WriteFile(path, b); err != nil {
		return fmt.Errorf("jupyter: writing the notebook: %w", err)
	}
	return nil
}
