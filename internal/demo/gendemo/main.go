// Command gendemo writes the demo session to the file given by -out.
package main

import (
	"bufio"
	"flag"
	"log"
	"os"

	"github.com/spillway-dev/spillway/internal/demo"
)

func main() {
	out := flag.String("out", "", "file to write")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := demo.Write(w); err != nil {
		log.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
