module github.com/spillway-dev/spillway

go 1.26.8

require (
	github.com/dlclark/regexp2 v1.10.0
	github.com/fsnotify/fsnotify v1.10.1
	github.com/google/go-cmp v0.7.0
	github.com/pkoukk/tiktoken-go v0.1.8
	github.com/pkoukk/tiktoken-go-loader v0.0.2
	github.com/valyala/fastjson v1.6.10
)

require (
	github.com/google/uuid v1.3.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)
