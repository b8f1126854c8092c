package transcript

import (
	"runtime"
	"sync"
)

// Each reads the files at paths on up to workers goroutines (0: one per
// CPU), turns each session into a T with process on the same goroutine,
// and calls fn with the results in the order of paths. At most 2×workers
// results are held at once, so memory stays near a few sessions whatever
// the number of files. An error from fn stops the work and is returned.
func Each[T any](paths []string, opt Options, workers int, process func(*Session) (T, error), fn func(path string, v T, err error) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		v   T
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
				var r result
				s, err := ReadFile(paths[i], opt)
				if err != nil {
					r.err = err
				} else {
					r.v, r.err = process(s)
				}
				results[i] <- r
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
		if err := fn(p, r.v, r.err); err != nil {
			return err
		}
	}
	return nil
}
