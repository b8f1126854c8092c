package tokens

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Deterministic generators of realistic text for tests and benchmarks: the
// same kind, size and seed always give the same text.

// corpusKinds are the generated kinds, in the order benchmarks report them.
var corpusKinds = []string{"prose", "code", "lock", "base64", "minified", "mixed", "spaces", "letter"}

// generate returns about size bytes (never less) of the kind of text. Only
// kind "tricky", made of edge cases, has invalid UTF-8.
func generate(kind string, size int, seed uint64) string {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed)), size: size}
	switch kind {
	case "prose":
		g.prose()
	case "code":
		g.code()
	case "lock":
		g.lock()
	case "base64":
		g.base64()
	case "minified":
		g.minified()
	case "mixed":
		g.mixed()
	case "spaces":
		g.b.WriteString(strings.Repeat(" ", size))
	case "letter":
		g.b.WriteString(strings.Repeat("a", size))
	case "tricky":
		g.tricky()
	default:
		panic("unknown corpus kind " + kind)
	}
	return g.b.String()
}

type gen struct {
	r    *rand.Rand
	b    strings.Builder
	size int
}

func (g *gen) full() bool { return g.b.Len() >= g.size }

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// zipf picks from list favouring its head, as word frequencies do.
func (g *gen) zipf(list []string) string {
	i := int(float64(len(list)) * g.r.Float64() * g.r.Float64() * g.r.Float64())
	return list[i]
}

func (g *gen) printf(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

var commonWords = strings.Fields(`the of and to a in is it you that he was for on are with as I his they be
at one have this from or had by not word but what some we can out other were all there when up use your how
said an each she which do their time if will way about many then them write would like so these her long make
thing see him two has look more day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live where after back little only
round man year came show every good me give our under name very through just form sentence great think say help
low line differ turn cause much mean before move right boy old too same tell does set three want air well also
play small end put home read hand port large spell add even land here must big high such follow act why ask men
change went light kind off need house picture try us again animal point mother world near build self earth father
head stand own page should country found answer school grow study still learn plant cover food sun four between
state keep eye never last let thought city tree cross farm hard start might story saw far sea draw left late run
while press close night real life few north open seem together next white children begin got walk example ease
paper group always music those both mark often letter until mile river car feet care second book carry took
science eat room friend began idea fish mountain stop once base hear horse cut sure watch color face wood main
enough plain girl usual young ready above ever red list though feel talk bird soon body dog family direct pose
leave song measure door product black short numeral class wind question happen complete ship area half rock order
fire south problem piece told knew pass since top whole king space heard best hour better true during hundred five
remember step early hold west ground interest reach fast verb sing listen six table travel less morning ten simple
several vowel toward war lay against pattern slow center love person money serve appear road map rain rule govern
pull cold notice voice unit power town fine certain fly fall lead cry dark machine note wait plan figure star box
noun field rest correct able pound done beauty drive stood contain front teach week final gave green oh quick
develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply nothing
course stay wheel full force blue object decide surface deep moon island foot system busy test record boat common
gold possible plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire
bring yes distant fill east paint language among`)

var techWords = strings.Fields(`function variable request response server client database query index cache
token tokenizer encoding transcript session agent model context window prompt completion latency throughput
repository commit branch merge rebase pipeline deployment container kubernetes cluster namespace configuration
environment dependency package module interface implementation refactor benchmark profiler allocation goroutine
channel mutex concurrency parallelism serialization deserialization authentication authorization middleware
endpoint websocket timeout retry backoff idempotent transaction migration schema postgres sqlite redis
observability telemetry metrics tracing logging dashboard alerting incident postmortem regression flaky
spillway replay terminal viewport scrollback keybinding renderer lipgloss bubbletea unmarshal marshal`)

var properNouns = strings.Fields(`Alice Bob Carol Dave London Paris Tokyo Berlin Monday Friday January October
Go Rust Python TypeScript Linux GitHub OpenAI Claude Anthropic Docker Kubernetes PostgreSQL JSON YAML HTTP API
README TODO NASA IEEE McDonald O'Brien iPhone macOS JavaScript WebAssembly`)

var contractions = strings.Fields(`don't can't won't it's I'm you're we'll they've she'd isn't didn't
that's there's let's wouldn't couldn't shouldn't I've we're He's DON'T WE'LL`)

func (g *gen) word() string {
	switch n := g.r.IntN(100); {
	case n < 70:
		return g.zipf(commonWords)
	case n < 82:
		return g.pick(techWords)
	case n < 88:
		return g.pick(properNouns)
	case n < 93:
		return g.pick(contractions)
	case n < 97:
		return g.rareWord()
	default:
		return fmt.Sprint(g.r.IntN(3000))
	}
}

var syllables = strings.Fields(`ka lo mi nu pe ra si to ve za bre dro fla gri plo stu tha quo xen yor ith ent
ous ial ism ness ment able`)

// rareWord makes a word outside the vocabulary, so merging is exercised.
func (g *gen) rareWord() string {
	var b strings.Builder
	for n := 2 + g.r.IntN(3); n > 0; n-- {
		b.WriteString(g.pick(syllables))
	}
	return b.String()
}

func (g *gen) sentence() {
	n := 4 + g.r.IntN(18)
	for i := 0; i < n; i++ {
		w := g.word()
		if i == 0 {
			w = capitalize(w)
		} else {
			g.b.WriteByte(' ')
		}
		if g.r.IntN(40) == 0 {
			w = "`" + w + "`"
		} else if g.r.IntN(60) == 0 {
			w = `"` + w + `"`
		}
		g.b.WriteString(w)
		if i < n-1 && g.r.IntN(9) == 0 {
			g.b.WriteString(g.pick([]string{",", ",", ";", ":", " -", " (see above)"}))
		}
	}
	g.b.WriteString(g.pick([]string{".", ".", ".", ".", "?", "!", "..."}))
}

func (g *gen) prose() {
	for !g.full() {
		switch g.r.IntN(12) {
		case 0:
			g.printf("## %s %s\n\n", capitalize(g.word()), g.word())
		case 1:
			for n := 2 + g.r.IntN(4); n > 0; n-- {
				g.b.WriteString("- ")
				g.sentence()
				g.b.WriteByte('\n')
			}
			g.b.WriteByte('\n')
		default:
			for n := 1 + g.r.IntN(6); n > 0; n-- {
				g.sentence()
				g.b.WriteByte(' ')
			}
			g.b.WriteString("\n\n")
		}
	}
}

var goTypes = strings.Fields(`string int int64 error bool []byte float64 time.Duration context.Context
*Session map[string]int []string`)

func (g *gen) ident(exported bool) string {
	w := g.pick(techWords)
	if g.r.IntN(2) == 0 {
		w += capitalize(g.pick(techWords))
	}
	if exported {
		w = capitalize(w)
	}
	return w
}

func capitalize(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

func (g *gen) code() {
	g.printf("package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"strings\"\n)\n\n", g.pick(techWords))
	for !g.full() {
		switch g.r.IntN(4) {
		case 0:
			g.printf("// %s is the %s of a %s.\ntype %s struct {\n", g.ident(true), g.word(), g.word(), g.ident(true))
			for n := 2 + g.r.IntN(5); n > 0; n-- {
				g.printf("\t%s %s `json:\"%s,omitempty\"`\n", g.ident(true), g.pick(goTypes), g.ident(false))
			}
			g.b.WriteString("}\n\n")
		default:
			g.printf("// %s %s the %s and returns its %s.\n", g.ident(true), g.word(), g.word(), g.word())
			g.printf("func (s *%s) %s(ctx context.Context, %s %s) (%s, error) {\n",
				g.ident(true), g.ident(true), g.ident(false), g.pick(goTypes), g.pick(goTypes))
			for n := 2 + g.r.IntN(8); n > 0; n-- {
				g.statement(1)
			}
			g.printf("\treturn %s, nil\n}\n\n", g.ident(false))
		}
	}
}

func (g *gen) statement(depth int) {
	in := strings.Repeat("\t", depth)
	switch g.r.IntN(7) {
	case 0:
		g.printf("%s%s, err := s.%s(ctx, %s)\n%sif err != nil {\n%s\treturn nil, fmt.Errorf(\"%s %%s: %%w\", %s, err)\n%s}\n",
			in, g.ident(false), g.ident(true), g.ident(false), in, in, g.word(), g.ident(false), in)
	case 1:
		g.printf("%sfor i := 0; i < len(%s); i++ {\n", in, g.ident(false))
		if depth < 3 {
			g.statement(depth + 1)
		}
		g.printf("%s}\n", in)
	case 2:
		g.printf("%s// %s %s %s.\n", in, g.word(), g.word(), g.word())
	case 3:
		g.printf("%s%s := strings.TrimSpace(%s[%d:])\n", in, g.ident(false), g.ident(false), g.r.IntN(64))
	case 4:
		g.printf("%sif %s == %q {\n%s\t%s++\n%s}\n", in, g.ident(false), g.word(), in, g.ident(false), in)
	case 5:
		g.printf("%s%s.%s = append(%s.%s, %s...)\n", in, g.ident(false), g.ident(true), g.ident(false), g.ident(true), g.ident(false))
	default:
		g.printf("%sx%d := %d * time.Millisecond\n", in, g.r.IntN(10), g.r.IntN(5000))
	}
}

func (g *gen) pkgName() string {
	name := g.rareWord()
	if g.r.IntN(4) == 0 {
		name = "@" + g.pick(techWords) + "/" + name
	} else if g.r.IntN(3) == 0 {
		name += "-" + g.pick(techWords)
	}
	return name
}

func (g *gen) version() string {
	return fmt.Sprintf("%d.%d.%d", g.r.IntN(20), g.r.IntN(40), g.r.IntN(30))
}

func (g *gen) randomBase64(nbytes int) string {
	buf := make([]byte, nbytes)
	for i := range buf {
		buf[i] = byte(g.r.Uint32())
	}
	return base64.StdEncoding.EncodeToString(buf)
}

func (g *gen) lock() {
	g.b.WriteString("{\n  \"name\": \"spillway-web\",\n  \"version\": \"0.1.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {\n")
	names := make([]string, 400)
	for i := range names {
		names[i] = g.pkgName()
	}
	for !g.full() {
		name, v := g.pick(names), g.version()
		base := name[strings.LastIndexByte(name, '/')+1:]
		g.printf("    \"node_modules/%s\": {\n      \"version\": \"%s\",\n", name, v)
		g.printf("      \"resolved\": \"https://registry.npmjs.org/%s/-/%s-%s.tgz\",\n", name, base, v)
		g.printf("      \"integrity\": \"sha512-%s\",\n", g.randomBase64(64))
		if g.r.IntN(3) == 0 {
			g.b.WriteString("      \"dev\": true,\n")
		}
		if g.r.IntN(2) == 0 {
			g.b.WriteString("      \"dependencies\": {\n")
			for n := 1 + g.r.IntN(4); n > 0; n-- {
				sep := ","
				if n == 1 {
					sep = ""
				}
				g.printf("        \"%s\": \"^%s\"%s\n", g.pick(names), g.version(), sep)
			}
			g.b.WriteString("      },\n")
		}
		g.printf("      \"engines\": {\n        \"node\": \">=%d\"\n      }\n    },\n", 10+g.r.IntN(10))
	}
	g.b.WriteString("  }\n}\n")
}

func (g *gen) base64() {
	g.b.WriteString("data:image/png;base64,")
	g.b.WriteString(g.randomBase64(g.size * 3 / 4))
}

func (g *gen) minified() {
	short := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$"
		s := string(letters[g.r.IntN(len(letters))])
		if g.r.IntN(3) == 0 {
			s += string(letters[g.r.IntN(len(letters))])
		}
		return s
	}
	g.b.WriteString("!function(e,t){\"use strict\";")
	for !g.full() {
		switch g.r.IntN(8) {
		case 0:
			g.printf("function %s(%s,%s){return %s.%s(%s)}", short(), short(), short(), short(), g.ident(false), short())
		case 1:
			g.printf("var %s=%s.length;for(var %s=0;%s<%s;%s++){if(%s[%s]===void 0)return!1}", short(), short(), short(), short(), short(), short(), short(), short())
		case 2:
			g.printf("%s.prototype.%s=function(%s){this.%s=%s||{}};", short(), g.ident(false), short(), g.ident(false), short())
		case 3:
			g.printf("throw new Error(\"%s %s: \"+%s);", g.word(), g.word(), short())
		case 4:
			g.printf("%s=%s?%s:%d,", short(), short(), short(), g.r.IntN(1000))
		case 5:
			g.printf("\"%s\"===typeof %s&&(%s=%s[%d]);", g.pick([]string{"string", "object", "function", "undefined"}), short(), short(), short(), g.r.IntN(16))
		default:
			g.printf("%s.%s(%s,{%s:!0,%s:%s})", short(), g.ident(false), short(), short(), short(), short())
		}
	}
	g.b.WriteString("}(this);")
}

var mixedSamples = []string{
	"机器学习是人工智能的一个分支。", "東京都は日本の首都です。", "한국어 문장도 섞여 있습니다.",
	"مرحبا بالعالم، هذا نص عربي.", "Привет, мир! Это тест.", "Γειά σου κόσμε.", "नमस्ते दुनिया।",
	"สวัสดีชาวโลก", "שלום עולם", "Ελληνικά και Русский", "naïve café résumé", "ﬁnancial ﬂow",
	"e\u0301te\u0301 cafe\u0301", "👍🏽 👨\u200d👩\u200d👧\u200d👦 🏳\ufe0f\u200d🌈 ❤\ufe0f", "🎉🎉🎉", "½ ² ③ Ⅻ ٣٤٥ ௧௨",
	"𝐀𝐁𝐂 𝒶𝒷𝒸 𠀀𠀁", "ǅungla ǈudi", "ʰʲ ˢ", "Ⓐⓑ", "x\u00a0y\u2009z\u3000w",
}

func (g *gen) mixed() {
	for !g.full() {
		if g.r.IntN(3) == 0 {
			g.b.WriteString(g.word())
		} else {
			g.b.WriteString(g.pick(mixedSamples))
		}
		g.b.WriteString(g.pick([]string{" ", " ", " ", "\n", "\n\n", ", ", "  "}))
	}
}

// trickyAtoms are the pieces random tricky text is made of: every class the
// split patterns tell apart, at and around their edges.
var trickyAtoms = []string{
	"a", "Z", "é", "É", "ǅ", "ʰ", "中", "ß", "ſ", "\u0301", "\u0300", "\u20dd", "\u0903",
	"0", "7", "٣", "²", "Ⅻ", "½", "𝟘", "𝐀", "𝒶", "𠀀", "🙂", "👍🏽", "\u200d", "\ufe0f",
	" ", " ", " ", "  ", "\t", "\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u00a0", "\u1680", "\u2000", "\u2009",
	"\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u180e", "\u200b", "\ufeff", "\x1c", "\x00",
	"'", "'s", "'S", "'t", "'re", "'RE", "'rE", "'ve", "'m", "'ll", "'LL", "'d", "'D", "'x", "'r", "'l",
	"’s", ".", ",", "!", "?", "/", "//", "-", "_", "(", ")", "{", "}", "\"", "`", "$", "@", "#", "=", "+", "*",
	"\uFFFD", "\xff", "\xc3", "\xe4\xb8", "\xed\xa0\x80", "\x80",
	"hello", "World", "HELLO", "McDonald", "iPhone", "don't", "DON'T", "<|endoftext|>", "<|fim_prefix|>",
	"12345", "3.14", "https://example.com/a/b", "    ", "\n\n", " \n ", "\t\t",
}

func (g *gen) tricky() {
	for !g.full() {
		g.b.WriteString(g.pick(trickyAtoms))
	}
}
