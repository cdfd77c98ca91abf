package ui

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"os"
	"strings"
)

// History is the history server: the UI of finished runs, replayed from
// their event logs. Each log's application gets the pages a live UI had,
// under /history/APP-ID/, and its API under
// /api/v1/applications/APP-ID/; /api/v1/ itself answers for the latest
// application, so that a run's log answers as its live UI did.
type History struct {
	apps  []*app // in the order of the logs' names: oldest first
	byID  map[string]*app
	paths map[string]string
}

// NewHistory reads the event logs at path: a log file, or a folder of
// them (see FindLogs).
func NewHistory(path string) (*History, error) {
	logs, err := FindLogs(path)
	if err != nil {
		return nil, err
	}
	h := &History{byID: map[string]*app{}, paths: map[string]string{}}
	for _, p := range logs {
		recs, err := ReadLog(p)
		if err != nil {
			return nil, err
		}
		st := NewState(false)
		for _, r := range recs {
			st.Apply(r)
		}
		ad, _ := st.Application()
		if _, dup := h.byID[ad.ID]; dup {
			return nil, fmt.Errorf("ui: %s and %s hold the same application %s", h.paths[ad.ID], p, ad.ID)
		}
		a := &app{id: ad.ID, state: st, base: "/history/" + ad.ID, replay: recs}
		h.apps = append(h.apps, a)
		h.byID[ad.ID] = a
		h.paths[ad.ID] = p
	}
	return h, nil
}

// Applications lists the applications, oldest first.
func (h *History) Applications() []ApplicationData {
	out := make([]ApplicationData, 0, len(h.apps))
	for _, a := range h.apps {
		d, _ := a.state.Application()
		out = append(out, d)
	}
	return out
}

// Handler serves the history server's pages and API.
func (h *History) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", staticHandler())
	mux.HandleFunc("GET /api/v1/applications", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, h.Applications())
	})
	mux.HandleFunc("/api/v1/applications/{app}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		a := h.byID[r.PathValue("app")]
		if a == nil {
			writeError(w, http.StatusNotFound, fmt.Sprintf("no application %q (known: %s)", r.PathValue("app"), strings.Join(h.ids(), ", ")))
			return
		}
		a.api(w, r, r.PathValue("rest"))
	})
	mux.HandleFunc("/api/v1/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		h.apps[len(h.apps)-1].api(w, r, r.PathValue("rest"))
	})
	mux.HandleFunc("/history/{app}/{rest...}", func(w http.ResponseWriter, r *http.Request) {
		a := h.byID[r.PathValue("app")]
		if a == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, errorPage("Unknown application", fmt.Sprintf("no application %q (known: %s)", r.PathValue("app"), strings.Join(h.ids(), ", "))))
			return
		}
		a.page(w, r)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		if len(h.apps) == 1 {
			http.Redirect(w, r, h.apps[0].base+"/jobs/", http.StatusFound)
			return
		}
		var content bytes.Buffer
		if err := templates.ExecuteTemplate(&content, "apps", h.Applications()); err != nil {
			panic(err)
		}
		var b bytes.Buffer
		if err := templates.ExecuteTemplate(&b, "layout", layoutData{Title: "Event logs", AppName: "history", Master: fmt.Sprintf("%d applications", len(h.apps)), Status: "replay", Content: templateHTML(content.String())}); err != nil {
			panic(err)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b.Bytes())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, errorPage("Not found", fmt.Sprintf("there is no page %s; the applications are under /history/ID/ (see /)", r.URL.Path)))
	})
	return recoverer(mux, os.Stderr)
}

func (h *History) ids() []string {
	out := make([]string, len(h.apps))
	for i, a := range h.apps {
		out[i] = a.id
	}
	return out
}

func templateHTML(s string) template.HTML { return template.HTML(s) }
