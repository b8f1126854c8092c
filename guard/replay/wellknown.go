package replay

import (
	"strings"
	"sync"
)

// wellKnown holds names an agent writes without having read them, because
// every program of their language or platform does: no evidence that it
// used a result that holds them, however long or rare in the session.
// Built when a hazard search first asks, not at every start.
var wellKnown = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, list := range []string{standardNames, codeWords} {
		for _, w := range strings.Fields(list) {
			m[w] = true
		}
	}
	return m
})

// standardNames are members of ECMAScript's standard library and of the
// web platform's (DOM, CSSOM, SVG) that are 12 characters or more and
// written in camel case: shorter or all-lowercase ones are never
// distinctive anyway.
const standardNames = `
toLocaleTimeString toLocaleDateString toLocaleString toLocaleLowerCase toLocaleUpperCase
toDateString toTimeString getTimezoneOffset getMilliseconds setMilliseconds getUTCFullYear
getUTCMinutes getUTCSeconds hasOwnProperty defineProperty defineProperties getOwnPropertyNames
getOwnPropertyDescriptor getOwnPropertySymbols getPrototypeOf setPrototypeOf isPrototypeOf
propertyIsEnumerable preventExtensions isExtensible fromCharCode fromCodePoint localeCompare
toExponential findLastIndex isSafeInteger MAX_SAFE_INTEGER MIN_SAFE_INTEGER POSITIVE_INFINITY
NEGATIVE_INFINITY encodeURIComponent decodeURIComponent structuredClone queueMicrotask setImmediate
clearImmediate clearInterval clearTimeout AbortController SharedArrayBuffer Float32Array
Float64Array Uint8ClampedArray BigInt64Array BigUint64Array FinalizationRegistry asyncIterator
ReferenceError AggregateError URLSearchParams DateTimeFormat NumberFormat RelativeTimeFormat
getElementById getElementsByClassName getElementsByTagName getElementsByName querySelector
querySelectorAll createElement createElementNS createTextNode createDocumentFragment insertBefore
replaceChild replaceChildren insertAdjacentHTML insertAdjacentElement insertAdjacentText
getAttribute setAttribute removeAttribute hasAttribute toggleAttribute getBoundingClientRect
getClientRects scrollIntoView scrollIntoViewIfNeeded getComputedStyle addEventListener
removeEventListener dispatchEvent preventDefault stopPropagation stopImmediatePropagation
requestAnimationFrame cancelAnimationFrame requestIdleCallback cancelIdleCallback localStorage
sessionStorage documentElement activeElement parentElement firstElementChild lastElementChild
nextElementSibling previousElementSibling previousSibling offsetHeight clientHeight scrollHeight
devicePixelRatio IntersectionObserver ResizeObserver MutationObserver PerformanceObserver
XMLHttpRequest HTMLDivElement HTMLInputElement HTMLCanvasElement HTMLButtonElement HTMLFormElement
HTMLTextAreaElement HTMLImageElement HTMLVideoElement HTMLAudioElement HTMLAnchorElement
HTMLSelectElement HTMLSpanElement HTMLIFrameElement CanvasRenderingContext2D WebGLRenderingContext
createObjectURL revokeObjectURL setPointerCapture releasePointerCapture PointerEvent KeyboardEvent
DOMContentLoaded currentTarget clipboardData dataTransfer serviceWorker getCurrentPosition
replaceState readAsDataURL readAsArrayBuffer createRadialGradient createLinearGradient getImageData
putImageData backgroundColor backgroundImage backgroundClip backgroundSize backgroundPosition
backgroundRepeat backgroundBlendMode backdropFilter borderRadius borderBottom alignContent
justifyContent justifyItems flexDirection gridTemplateColumns gridTemplateRows gridTemplateAreas
letterSpacing textTransform textDecoration textOverflow overflowWrap transformOrigin transformStyle
transitionDuration transitionProperty transitionTimingFunction transitionDelay animationDelay
animationDuration animationName animationTimingFunction animationIterationCount animationFillMode
animationPlayState perspectiveOrigin backfaceVisibility maskComposite WebkitMaskComposite
WebkitBackgroundClip WebkitTextFillColor WebkitMaskImage mixBlendMode pointerEvents objectPosition
marginBottom paddingBottom paddingRight borderCollapse outlineOffset scrollBehavior scrollSnapType
linearGradient radialGradient strokeLinecap strokeLinejoin strokeDasharray strokeDashoffset
preserveAspectRatio foreignObject feGaussianBlur gradientTransform gradientUnits
`

// codeWords are the keywords of the languages agents write most
// (JavaScript and TypeScript, Python, Go, Rust) and the names their
// programs use everywhere: a run made of them and punctuation alone, such
// as "error instanceof Error ? error.message :", is an idiom.
const codeWords = `
abstract and any append as assert async await bigint bind bool boolean break byte case catch chan class cls
const constructor continue crate def default defer del delete dict do dyn elif else enum env err error
except export exports extends false finally float fn for from func function get global go if impl
implements import in instanceof int interface keyof len let list loop make map match mod module move mut
namespace never new nil none not null number object of or package pass print private protected pub
public raise range readonly ref require return rune select self set static str string struct super
switch symbol this throw trait true try tuple type typeof undefined unknown unsafe use var void where
while with yield
Array Box Date Err Error False JSON Math None Number Object Ok Option Promise Result Self Some String
True Vec
apply call console data document event filter forEach key keys length log message msg name parse
process prototype push reduce req request res response result stack stringify target then toString
value values window
`
