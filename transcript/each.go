package transcript

import (
	"runtime"
	"sync"
)

// ReadEach reads the files at paths on up to workers goroutines (0: one per
// CPU) and calls fn for each, in the order of paths. At most 2×workers
// sessions are in memory at once. An error from fn stops the reading and is
// returned.
func ReadEach(paths []string, opt Options, workers int, fn func(path string, s *Session, err error) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		s   *Session
		err error
	}
	results := make([]chan result, len(paths))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	window := make(chan struct{}, 2*workers) // read-ahead bound
	jobs := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	go func() {
		defer close(jobs)
		for i := range paths {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s, err := ReadFile(paths[i], opt)
				results[i] <- result{s, err}
			}
		}()
	}
	defer func() {
		close(stop)
		for range jobs { // let the feeder exit
		}
		wg.Wait()
	}()
	for i, p := range paths {
		r := <-results[i]
		<-window
		if err := fn(p, r.s, r.err); err != nil {
			return err
		}
	}
	return nil
}
