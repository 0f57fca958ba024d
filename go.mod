module github.com/hprofctl/hprofctl

go 1.26.8
