package session

import (
	"fmt"

	"github.com/hprofctl/hprofctl/analysis/profile"
	"github.com/hprofctl/hprofctl/internal/dumpfile"
	"github.com/hprofctl/hprofctl/model"
	"github.com/hprofctl/hprofctl/parser/input"
	"github.com/hprofctl/hprofctl/parser/jvmpi"
)

// Profile returns the profiling data of an hprof agent file: a binary
// file's comes with its heap (from a fresh index, else read without the
// objects), an ASCII file's is read from it (Options.Dump picks its
// MONITOR DUMP).
func (s *Session) Profile() (*model.Profile, error) { return s.profile() }

func (s *Session) readProfile() (*model.Profile, error) {
	if err := s.notThreadDump(); err != nil {
		return nil, err
	}
	if s.binary() {
		h, err := s.loadHeap(false)
		if err != nil {
			return nil, err
		}
		return h.Profile(), nil
	}
	p, _, err := s.loadProfile(false)
	return p, err
}

// loadProfile reads the profiling data of an agent file, ASCII or
// binary; for a binary file the heap too (with its objects when objects
// is set).
func (s *Session) loadProfile(objects bool) (*model.Profile, *model.Heap, error) {
	s.mu.Lock()
	f, err := s.read()
	s.mu.Unlock()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	defer s.progress(f)()
	p, h, err := model.LoadProfile(f, model.LoadOptions{Dump: s.o.Dump, Objects: objects})
	if err != nil {
		return nil, nil, err
	}
	s.warnTruncated(f.Name, p.Anomalies)
	p.Deobfuscate(s.o.Mapping)
	if h != nil {
		dumpfile.Attach(h, s.file())
		h.Deobfuscate(s.o.Mapping)
	}
	return p, h, nil
}

// CPU ranks the stack traces of the agent's CPU samples or times as o
// asks.
func (s *Session) CPU(o profile.CPUOptions) (profile.CPUReport, error) {
	p, err := s.Profile()
	if err != nil {
		return profile.CPUReport{}, err
	}
	return profile.CPU(p, o)
}

// Monitors reads the monitor contention and state: an hprof agent file's
// MONITOR TIME and MONITOR DUMP, or a JVMPI monitor dump capture's
// monitors; depth is how many frames of each trace to keep (0: all).
func (s *Session) Monitors(depth int) (profile.MonitorsReport, error) {
	if s.format.Kind == input.KindJVMPICapture {
		_, monitors, err := jvmpi.ReadMonitorDump(s.format.Manifest)
		if err != nil {
			return profile.MonitorsReport{}, err
		}
		return profile.MonitorsFromJVMPI(monitors), nil
	}
	p, err := s.Profile()
	if err != nil {
		return profile.MonitorsReport{}, err
	}
	return profile.Monitors(p, depth)
}

// Sites ranks the allocation sites as o asks, from the best source the
// file has (profile.Sites); the session gives the size mode and, from
// its index, the dominator tree.
func (s *Session) Sites(o profile.SiteOptions) (profile.SitesReport, error) {
	o.Size = s.o.Size
	p, h, err := s.sitesSource(&o)
	if err != nil {
		return profile.SitesReport{}, err
	}
	return profile.Sites(p, h, o)
}

// sitesSource reads what Sites ranks: the profile and, when it has no site
// table, the heap with its objects, from the dump's index (built when
// missing) where it can; the index's dominator tree then goes into
// o.Retention. A binary file is first opened from a fresh index or read
// without its objects, which is all a site table needs.
func (s *Session) sitesSource(o *profile.SiteOptions) (*model.Profile, *model.Heap, error) {
	var (
		p   *model.Profile
		h   *model.Heap
		err error
	)
	if s.binary() {
		if h, err = s.loadHeap(false); err != nil {
			return nil, nil, err
		}
	}
	if p, err = s.Profile(); err != nil {
		return nil, nil, err
	}
	if p.Sites != nil {
		return p, h, nil
	}
	if h, err = s.Heap(); err != nil {
		return nil, nil, err
	}
	if h.Source.Dumps == 0 {
		return nil, nil, fmt.Errorf("%s: the file has no allocation sites and no heap dump", s.path)
	}
	if s.indexOf() != nil {
		o.Retention, err = s.Retention()
	}
	return p, h, err
}
