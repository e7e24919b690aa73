// A JavaScript library for the glue (--js-library): embind's readLatin1String, which reads
// every registered name (142 calls at start-up: our functions and embind's built-in types)
// and every val property key. embind's own loop concatenates one character per byte; at
// start-up it ran in the interpreter and got hot enough for V8 to optimise it with TurboFan,
// about 2 ms of CPU competing with the start-up for the machine's cores. Eight bytes per
// String.fromCharCode call take an eighth of the iterations, and V8 leaves it alone at
// start-up. Once optimised it is as fast as embind's loop for short keys and faster for long
// names (String.fromCharCode.apply on a subarray, or a TextDecoder, would be about twice as
// slow on the short keys that val objects set). Bytes read past the terminating zero are
// cut off by the slice. Newer emscripten spells mergeInto addToLibrary, and may not use
// readLatin1String at all (then this is left out of the glue).
(typeof addToLibrary === 'function' ? addToLibrary : (lib) => mergeInto(LibraryManager.library, lib))({
  $readLatin1String__deps: [],
  $readLatin1String: function (ptr) {
    var end = HEAPU8.indexOf(0, ptr);
    var text = '';
    for (var i = ptr; i < end; i += 8) {
      text += String.fromCharCode(HEAPU8[i], HEAPU8[i + 1], HEAPU8[i + 2], HEAPU8[i + 3],
        HEAPU8[i + 4], HEAPU8[i + 5], HEAPU8[i + 6], HEAPU8[i + 7]);
    }
    return text.slice(0, end - ptr);
  },
});
