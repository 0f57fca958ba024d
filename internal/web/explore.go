package web

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/hprofctl/hprofctl/analysis/graph"
	"github.com/hprofctl/hprofctl/analysis/heap"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/report/html"
)

// The class page lists its instances classRows a page.
const classRows = 50

func (s *Server) classPage(r *http.Request) (html.Page, error) {
	name := r.URL.Query().Get("name")
	if name == "" {
		return nil, badRequest("name: want a class name, as java.util.HashMap")
	}
	top, err := s.rowsParam(r, "top", classRows)
	if err != nil {
		return nil, err
	}
	offset, err := intParam(r, "offset", 0)
	if err != nil {
		return nil, err
	}
	h, err := s.s.Heap()
	if err != nil {
		return nil, err
	}
	p := html.ClassPage{Site: s.site, Name: name}
	for c := range h.Classes {
		if h.Classes[c].Name != name {
			continue
		}
		info, err := s.classInfo(h, model.ClassIndex(c))
		if err != nil {
			return nil, err
		}
		p.Classes = append(p.Classes, info)
	}
	if len(p.Classes) == 0 {
		return nil, &httpError{http.StatusNotFound, fmt.Sprintf("no class named %q in the dump", name)}
	}
	exact := regexp.MustCompile("^" + regexp.QuoteMeta(name) + "$")
	histo, err := s.s.Histogram(heap.HistoOptions{Sort: "bytes", Match: exact})
	if err != nil {
		return nil, err
	}
	if len(histo.Rows) > 0 {
		p.Histogram = histo.Rows[0]
	}
	byClass, err := s.s.Dominators(heap.DominatorOptions{Class: exact, ByClass: true})
	if err != nil {
		return nil, err
	}
	if len(byClass.Classes) > 0 {
		p.Retained = &byClass.Classes[0]
	}
	if p.Instances, err = s.s.Dominators(heap.DominatorOptions{Class: exact, Top: top, Offset: offset}); err != nil {
		return nil, err
	}
	p.Pager = newPager(p.Instances.Selected, offset, top, len(p.Instances.Rows), s.limits.Rows, func(offset, top int) string {
		v := url.Values{"name": {name}, "offset": {strconv.Itoa(offset)}, "top": {strconv.Itoa(top)}}
		return "/class?" + v.Encode() + "#instances"
	})
	return p, nil
}

// classInfo describes class c: its class object, superclass, loader,
// instances and static fields with their values.
func (s *Server) classInfo(h *model.Heap, c model.ClassIndex) (html.ClassInfo, error) {
	cl := h.Classes[c]
	info := html.ClassInfo{Instances: cl.Instances, InstanceSize: cl.DumpInstanceSize}
	if cl.Super != model.NoClass && int(cl.Super) < len(h.Classes) {
		info.Super = h.Classes[cl.Super].Name
	}
	if cl.Loader != 0 {
		info.Loader = fmt.Sprintf("0x%x", cl.Loader)
	}
	if cl.Object == model.NoObject {
		return info, nil
	}
	info.ObjectID = heap.ObjectID(h, cl.Object)
	shown, err := s.show(cl.Object, heap.ShowOptions{})
	if err != nil {
		return info, err
	}
	for _, f := range shown.Fields {
		if f.Static {
			info.Statics = append(info.Statics, f)
		}
	}
	return info, nil
}

// retainerQuery reads a retainers question: object (repeatable) or
// class, paths and include-weak, as the retainers command's flags.
func (s *Server) retainerQuery(r *http.Request) (graph.RetainerOptions, error) {
	const maxTargets = 100
	var o graph.RetainerOptions
	ids := r.URL.Query()["object"]
	class := r.URL.Query().Get("class")
	if (class == "") == (len(ids) == 0) {
		return o, badRequest("give either class=REGEX or object=ID")
	}
	if len(ids) > maxTargets {
		return o, badRequest("object: %d ids, at most %d", len(ids), maxTargets)
	}
	var err error
	if o.Paths, err = s.rowsParam(r, "paths", 3); err != nil {
		return o, err
	}
	if o.IncludeWeak, err = boolParam(r, "include-weak"); err != nil {
		return o, err
	}
	if o.Class, err = regexpParam(r, "class"); err != nil {
		return o, err
	}
	for _, id := range ids {
		obj, err := s.lookup(id)
		if err != nil {
			return o, err
		}
		o.Objects = append(o.Objects, obj)
	}
	return o, nil
}

func (s *Server) retainersPage(r *http.Request) (html.Page, error) {
	o, err := s.retainerQuery(r)
	if err != nil {
		return nil, err
	}
	ret, err := s.s.Retainers(o)
	if err != nil {
		return nil, err
	}
	p := html.RetainersPage{Site: s.site, Class: r.URL.Query().Get("class"), Paths: o.Paths, Weak: o.IncludeWeak, Retainers: ret}
	if len(o.Objects) > 0 {
		p.Object = r.URL.Query().Get("object")
	}
	return p, nil
}

// topQuery reads a top consumers question: by and top, as the top
// command's flags (20 groups unless asked otherwise).
func (s *Server) topQuery(r *http.Request) (heap.TopOptions, error) {
	o := heap.TopOptions{By: r.URL.Query().Get("by")}
	if o.By == "" {
		o.By = heap.ByClass
	}
	if err := o.Check(); err != nil {
		return o, badRequest("by: %v", err)
	}
	var err error
	o.Top, err = s.rowsParam(r, "top", 20)
	return o, err
}

func (s *Server) topPage(r *http.Request) (html.Page, error) {
	o, err := s.topQuery(r)
	if err != nil {
		return nil, err
	}
	t, err := s.s.TopConsumers(o)
	if err != nil {
		return nil, err
	}
	return html.TopPage{Site: s.site, Top: t, By: o.By, N: o.Top}, nil
}

// The icicle draws icicleDepth levels of the dominator tree below its
// root, and no object that retains less than 1/icicleDetail of it (a box
// of one unit of its 1,200), so that it holds some thousands of boxes at
// most.
const (
	icicleDepth  = 10
	icicleDetail = 1200
)

func (s *Server) iciclePage(r *http.Request) (html.Page, error) {
	p := html.IciclePage{Site: s.site}
	root := model.NoObject
	if id := r.URL.Query().Get("root"); id != "" {
		obj, err := s.lookup(id)
		if err != nil {
			return nil, err
		}
		d, err := s.s.DominatedBy(obj, heap.DominatorOptions{Top: 1})
		if err != nil {
			return nil, err
		}
		root, p.Chain = obj, d.Chain
	}
	var size int64
	if root == model.NoObject {
		t, err := s.s.Totals()
		if err != nil {
			return nil, err
		}
		size = t.ReachableBytes
	} else {
		ret, err := s.s.Retention()
		if err != nil {
			return nil, err
		}
		size = ret.RetainedBytes(root)
	}
	var err error
	p.Root, err = s.s.RetainedTree(root, icicleDepth, size/icicleDetail)
	return p, err
}
