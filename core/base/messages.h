// The engine's user-visible messages as ids with parameters, so the app and attnviz-cli can show them in the
// user's language without core knowing any language but English. An error built with an id carries its
// English text (made here from the template, for logs and tests) and the parts {id, args} a translation
// table renders; a prefix ("query text: ", "FILE:3: ") is a part of its own in front of the inner message.
// The rule for a translation: render every part from the table, and show the English text when any part
// has no id (an error built from plain text) or no translation.
// These are the ids core itself uses. The programs (attnviz, attnviz-cli) have ids of their own, numbered from
// MsgId::kAppFirst on (app/common/i18n/app_messages.h): core never makes one, knows neither their names nor their
// templates, and carries them in a Status like its own (Status::Error with the template given).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

enum class MsgId : int {
  kNone = 0,  // plain English text, no template
  // ---- prefixes: put in front of an inner message
  kPrefixContext,       // "{0}: "            an option, a file or a field
  kPrefixFileLine,      // "{0}:{1}: "        a file and a line
  kPrefixKeyValueText,  // "key/value text: "
  kPrefixQueryText,     // "query text: "
  kPrefixLeftOfSep,     // "query sentence (left of '|||'): "
  kPrefixRightOfSep,    // "key/value sentence (right of '|||'): "
  kPrefixSweep,         // "sweep: "
  kPrefixSweepDk,       // "sweep: d_k={0}: "
  // ---- settings (config.h Validate, the Parse* functions, qkv_source.h)
  kOutOfRange,           // {0} field, {1} value, {2} lo, {3} hi
  kTemperatureRange,     // {0} value, {1} lo, {2} hi
  kSoftcapRange,         // {0} value, {1} hi
  kCausalNeedsSelf,
  kProjectionTooLarge,   // {0} floats, {1} the most allowed
  kUnknownName,          // {0} what, {1} text, {2} allowed names
  kWidthMismatch,        // {0} query source, {1} width, {2} " (d_k)" or "", {3} key source, {4} width, {5}
  // ---- numbers (parse_number.h)
  kNotWholeNumber,       // {0} text, {1} lo, {2} hi
  kNumberOutOfRange,     // {0} text, {1} lo..hi
  kNotANumber,           // {0} text, {1} lo..hi
  // ---- text (text.h)
  kTextEmpty,
  kTextOnlySpaces,
  kTooManyTokens,        // {0} the most tokens
  kInvalidUtf8,          // {0} byte offset, {1} the byte (hex)
  kControlCharacter,     // {0} U+XXXX, {1} byte offset
  kFileInvalidUtf8,      // {0} offset in the file, {1} byte of the line
  kMoreThanOneSeparator,
  kNoSentences,          // {0} file
  // ---- files (file_io.h)
  kCannotOpen,           // {0} path, {1} the system's reason
  kIsAFolder,            // {0} path
  // ---- model files (core/model, core/tokenize)
  kPrefixTensor,              // {0} tensor name
  kPrefixCheckpoint,          // {0} model_type
  kJsonInvalidAtByte,         // {0} byte, {1} parser
  kJsonInvalid,               // {0} parser
  kMustBeJsonObject,
  kConfigMissingInt,          // {0} key, {1} lo, {2} hi
  kConfigNotInt,              // {0} key, {1} value, {2} lo, {3} hi
  kConfigMissingKey,          // {0} key
  kConfigNotNumber,           // {0} key, {1} value, {2} lo, {3} hi
  kConfigNotBool,             // {0} key, {1} value
  kConfigNotString,           // {0} key, {1} value
  kConfigActivation,          // {0} key, {1} value
  kConfigNotMultiple,         // {0} key, {1} value, {2} key, {3} value
  kConfigNoHeadDim,           // {0} hidden_size, {1} num_attention_heads
  kConfigPositionEmbedding,   // {0} value
  kConfigRopeScalingForm,     // {0} file
  kConfigRopeTypeMissing,
  kConfigRopeFreqOrder,
  kConfigRopeType,            // {0} type, {1} the built types
  kConfigHeadDimOdd,          // {0} head_dim
  kConfigSlidingWindow,
  kConfigNoModelType,         // {0} the supported model types (core/model/arch/family.h)
  kConfigModelType,           // {0} model_type, {1} the supported model types
  kConfigHeadsTooWide,        // {0} width, {1} the most
  kConfigTooLarge,
  kConfigRotaryDims,          // {0} key, {1} value, {2} head size, {3} rotary dims
  kConfigLongRopeFactors,     // {0} key, {1} count, {2} wanted
  kConfigRefusedMoe,          // {0} key, {1} value, {2} the supported model types (refusals: arch/refused.cpp)
  kConfigRefusedLinearAttention,  // {0} key, {1} value, {2} the supported model types
  kConfigGemma3Multimodal,    // {0} the supported model types
  kConfigLayerType,           // {0} index, {1} value
  kConfigLayerTypesCount,     // {0} entries, {1} num_hidden_layers
  kConfigEncoderDecoder,      // {0} model_type, {1} the encoder-decoder model types (core/model/seq2seq.h opens them)
  kConfigNotEncoderDecoder,   // {0} model_type, {1} the encoder-decoder model types
  kConfigRefusedUmt5,         // {0} the supported model types
  kCannotStat,                // {0} reason
  kNotRegularToMap,
  kCannotMmap,                // {0} bytes, {1} reason
  kStTruncated,               // {0} bytes
  kStHeaderPastEnd,           // {0} length, {1} file bytes, {2} the most
  kStHeaderTooLong,           // {0} length
  kStHeaderTooShort,          // {0} bytes
  kStHeaderJsonAt,            // {0} header byte, {1} file offset, {2} parser
  kStHeaderJson,              // {0} parser
  kStHeaderNotObject,
  kStMetadataForm,
  kStMetadataValue,           // {0} key
  kStEntryForm,
  kStDtypeMissing,
  kStDtypeUnknown,            // {0} dtype
  kStShapeMissing,
  kStShapeNegative,           // {0} shape
  kStShapeElements,           // {0} shape
  kStShapeBytes,              // {0} shape
  kStOffsetsForm,
  kStOffsetsReversed,         // {0} offsets
  kStOffsetsOutside,          // {0} offsets, {1} data bytes
  kStOffsetsSpan,             // {0} offsets, {1} bytes, {2} shape, {3} dtype, {4} bytes needed
  kStOverlap,                 // {0} tensor, {1} tensor, {2} from, {3} to
  kTensorDtype,               // {0} tensor, {1} dtype
  kTensorInTwoFiles,          // {0} tensor, {1} file, {2} file
  kNoSafetensors,
  kIndexTooLarge,             // {0} bytes
  kIndexNoWeightMap,
  kIndexEntryNotString,       // {0} tensor
  kIndexShardName,            // {0} tensor, {1} shard
  kIndexEmpty,
  kIndexTensorAbsent,         // {0} tensor, {1} shard
  kIndexTensorElsewhere,      // {0} tensor, {1} listed shard, {2} actual
  kTensorNotFound,            // {0} tensor
  kTensorShape,               // {0} tensor, {1} file, {2} shape, {3} needed shape
  kTensorMissing,             // {0} tensor; then kTensorAlsoTried, kTensorMissingIn(Shards)
  kTensorAlsoTried,           // {0} the other names ('a' 'b')
  kTensorMissingIn,           // {0} file
  kTensorMissingInShards,     // {0} first shard
  kVocabJsonForm,
  kVocabEntryNoId,            // {0} token
  kMergeLineForm,             // {0} line
  kVocabEmpty,
  kKeyMustBeBool,             // {0} key
  kNotInVocab,                // {0} token
  kBpeFileMissing,            // {0} the file that is there
  kNoSuchFolder,
  kNoTokenizerFiles,
  kJsonInvalidAtOffset,       // {0} byte offset, {1} line, {2} column, {3} parser
  kJsonInvalidShort,          // {0} parser
  kRegexCompile,              // {0} pattern, {1} PCRE2's reason, {2} byte
  kRegexMatch,                // {0} pattern, {1} PCRE2's reason
  kUnknownTokenAbsent,        // {0} token
  kMergeNotInVocab,           // {0} merge number, {1} left, {2} right, {3} missing token
  kVocabNegativeId,           // {0} token, {1} id
  kVocabImplausibleId,        // {0} token, {1} id
  kVocabIdTwice,              // {0} id, {1} token, {2} token
  kTokenizerTopLevel,
  kTokenizerNoModel,
  kTokenizerType,             // {0} section, {1} type, {2} supported
  kTokenizerTypeAt,           // {0} section, {1} type, {2} place, {3} supported
  kTokenizerNoType,
  kKeyMustBeString,           // {0} key
  kKeyMustBeChar,             // {0} key
  kTokenizerPattern,
  kKeyMustBeList,             // {0} key
  kMustBeList,
  kMustBeObject,
  kTokenizerBehavior,         // {0} value
  kTokenizerPrependScheme,    // {0} value
  kTokenizerPrefixSpace,
  kTokenizerVocabForm,
  kTokenizerVocabEntry,       // {0} token
  kTokenizerDropout,
  kTokenizerMergeForm,        // {0} merge number, {1} line
  kTokenizerMergeShape,       // {0} merge number
  kTokenizerIdForm,
  kTokenizerPairToken,        // {0} key
  kTokenizerSpecialAbsent,    // {0} name
  kTokenizerSpecialLengths,   // {0} name
  kTokenizerSpecialBad,       // {0} name
  kTokenizerTemplateItem,
  kTokenizerUnexpected,       // {0} parser
  kTextTooLongToTokenize,     // {0} bytes, {1} the most
  kJsonTooDeep,               // {0} the most levels, {1} byte offset, {2} line, {3} column
  kTokenizerTooDeep,          // {0} section, {1} the most levels
  kTokenizerGrowth,           // {0} step, {1} code points out, {2} code points in, {3} factor, {4} slack
  kRegexBudget,               // {0} pattern, {1} steps, {2} text bytes, {3} steps per byte
  kWordPieceMaxChars,         // {0} value, {1} the most
  kTokenizerIdRange,          // {0} id, {1} the most
  kTokenizerIdNamesNoToken,   // {0} key, {1} id, {2} the largest id
  kTokenizerUnigramEntry,     // {0} entry number
  kSentencePieceModel,        // {0} the library's message
  // ---- weights and .npy (core/sandbox/weights.cpp, core/io/npy.cpp)
  kWeightsShape,              // {0} shape, {1} meaning, {2} wanted shape, {3} d_model, {4} n_head, {5} d_k, {6} d_v
  kPrefixNpyInvalid,
  kNpyNoMagic,
  kNpyTruncatedHeader,
  kNpyVersion,                // {0} version
  kNpyHeaderPastEnd,
  kNpyHeaderKeys,
  kNpyShapeNotTuple,          // {0} shape
  kPrefixNpyBadShape,         // {0} shape
  kNpyShapeOverflow,          // {0} shape
  kNpyShapeDims,              // {0} shape
  kNpyBadShape,               // {0} shape
  kNpyDtype,                  // {0} descr
  kNpyFortran,
  kNpyDataSize,               // {0} bytes, {1} shape, {2} bytes needed
  kNpyNotFinite,              // {0} index, {1} NaN or Inf
  kNpyBeyondFloat32,          // {0} index, {1} value
  // ---- head roles (core/model/roles.cpp)
  kUnknownRole,               // {0} text, {1} the roles
  kRoleFilterEmpty,           // then kRoleFilterSyntax
  kRoleFilterNoComparison,    // {0} filter
  kRoleFilterNoRole,          // {0} the comparison on
  kRoleFilterNoNumber,        // {0} filter
  kRoleFilterNotNumber,       // {0} text
  kRoleFilterOutside,         // {0} threshold
  kRoleFilterSyntax,          // {0} the roles; after one of the above
  kRoleFilterSyntaxParens,    // {0} the roles; after kUnknownRole
  // ---- export: writing files (file_io.h), figures
  kNoOutputPath,
  kIsAFolderGiveFile,         // {0} path
  kCannotWriteInFolder,       // {0} path, {1} folder, {2} the system's reason
  kWriteFailedNothingWritten, // {0} path, {1} the system's reason
  kWriteFailed,               // {0} path, {1} the system's reason
  kCannotOpenForWriting,      // {0} path, {1} the system's reason
  kNoFolderGiven,
  kExistsNotFolder,           // {0} path
  kCannotCreateFolder,        // {0} path, {1} the system's reason
  kCannotWrite,               // {0} path
  kSizeNoUnit,                // {0} text
  kSizeNotWxH,                // {0} text
  kSizeNotANumber,            // {0} text, {1} the part
  kSizeOutOfRange,            // {0} text
  kSizeTooManyPixels,         // {0} dpi, {1} width, {2} height
  kFigureTooSmall,            // {0} WxH asked, {1} dpi, {2} width, {3} height needed
  kSvgTooManyCells,           // {0} cells, {1} the most
  kPngTooLarge,               // {0} width, {1} height
  kTitleTooWide,              // {0} the title's characters, {1} width, {2} height
  kLongExportTooLarge,        // {0} .format, {1} n_q, {2} n_k, {3} cells, {4} the most
  kNothingToExport,
  kHeadOutOfRange,            // {0} head, {1} the last head, {2} n_head
  kCellSizeRange,             // {0} value
  kFigureWidthRange,          // {0} value
  kDpiRange,                  // {0} value
  kNoOutputFile,
  kUnknownFormat,             // {0} format
  kNoExtension,               // {0} path
  kUnknownExtension,          // {0} path, {1} extension
  kPlotUnknownExtension,      // {0} path, {1} extension
  kPdfNoGlyph,                // {0} the character, {1} U+XXXX, {2} the text it is in
  // ---- reading files and options: ReadFile (file_io.cpp; {kind} is ReadFile's `what`, e.g. "sentence file",
  // shown in the UI's language by messages_ko.cpp), the dump folder, --heads lists (figure/export.cpp),
  // colormaps (colormap.cpp), fonts (figure/font.cpp)
  kReadStatFailed,            // {0} path, {1} the system's reason
  kNotRegularFileToRead,      // {0} path, {1} kind
  kFileTooLargeFor,           // {0} path, {1} bytes, {2} kind, {3} the limit
  kFileGrewWhileRead,         // {0} path, {1} the limit, {2} kind
  kReadError,                 // {0} path, {1} the system's reason
  kCannotReadLink,            // {0} path, {1} the system's reason
  kTooManyLinks,              // {0} path
  kCannotCreateStaging,       // {0} folder, {1} parent, {2} the system's reason
  kCannotMoveIntoPlace,       // {0} path, {1} the system's reason
  kHeadsEmptyItem,            // {0} list
  kHeadsNotNumber,            // {0} list, {1} item
  kHeadsNotRange,             // {0} list, {1} item
  kHeadsBackwards,            // {0} list, {1} item
  kHeadInListOutOfRange,      // {0} head, {1} the last head, {2} n_head
  kUnknownColormap,           // {0} name, {1} the names
  kUnknownColorScale,         // {0} name
  kFontNotFoundInDir,         // {0} family, {1} file name, {2} folder, {3} package
  kFontNotFound,              // {0} family, {1} file name, {2} package
  kFontNotTrueType,           // {0} path, {1} package
  // ---- the Dictionary view (core/lessons/dictionary.cpp)
  kDictNotNumbers,  // {0} text
  kDictNoNumber,  // {0} text
  kDictUnclosedBrace,
  kDictEntryEmpty,  // {0} byte offset
  kDictEntryNoColon,  // {0} byte offset, {1} entry
  kDictEntryEmptyKey,  // {0} byte offset, {1} entry
  kDictEntryKeyTwice,  // {0} byte offset, {1} key
  kPrefixDictEntryValue,  // {0} byte offset, {1} key; then the value's error
  kDictNoEntry,
  kDictNoKey,
  kDictKeysButValues,  // {0} keys, {1} values
  kDictAdditive,
  kDictTemperature,  // {0} value, {1} lo, {2} hi
  kDictValueWidths,  // {0} key, {1} its width, {2} first key, {3} its width
  kDictWidthMismatch,  // {0} query, {1} width, {2} key, {3} width
  // ---- limits: nesting, memory, non-finite numbers, output targets (hardening round 2)
  kJsonNestsTooDeep,          // {0} the most levels (model JSON files: parsed with a depth bound)
  kRunMemory,                 // {0} estimated bytes (text), {1} the limit (text), {2} tokens
  kOutOfMemory,               // {0} what was being done
  kTensorNotFinite,           // {0} element index, {1} NaN or Inf
  kActivationNotFinite,       // {0} layer, {1} stage
  kNotRegularToWrite,         // {0} path
  kDumpNameIsFolder,          // {0} path
  kCannotRestore,             // {0} path, {1} the system's reason
  kStSymlinkLoop,             // {0} path
  kTextTooManyBytesForModel,  // {0} bytes, {1} the most, {2} positions, {3} bytes per token
  kTextNoTokens,
  kTextTooLongForModel,       // {0} model_type, {1} the most (the count stops there: the rest is not tokenized)
  kTokenOutsideVocab,         // {0} token, {1} id, {2} vocab size
  kSandboxTooLarge,           // {0} estimated bytes (text), {1} the limit (text), {2} words
  kOneHotTooWide,             // {0} distinct words, {1} the most
  // ---- GGUF files (core/model/gguf_*.cpp, core/tokenize/gguf_tokenizer.cpp)
  kGgufNotGguf,              // {0} bytes
  kGgufVersion,
  kGgufBigEndian,            // {0} version
  kGgufTruncated,            // {0} byte, {1} what, {2} bytes needed, {3} bytes left
  kGgufCountTooLarge,        // {0} what, {1} value, {2} byte, {3} the most
  kGgufValueType,            // {0} key, {1} byte, {2} type
  kGgufArrayDepth,           // {0} key, {1} byte, {2} the most
  kGgufKeyTwice,             // {0} key, {1} byte
  kGgufKeyType,              // {0} key, {1} type, {2} expected
  kGgufAlignment,            // {0} value
  kGgufNameLength,           // {0} byte, {1} length, {2} the most
  kGgufTensorDims,           // {0} tensor, {1} byte, {2} dims
  kGgufTensorDim,            // {0} tensor, {1} byte, {2} index, {3} value, {4} the most
  kGgufTensorElements,       // {0} tensor, {1} byte, {2} ne
  kGgufTensorType,           // {0} tensor, {1} byte, {2} type id
  kGgufTensorRow,            // {0} tensor, {1} byte, {2} ne0, {3} type, {4} block
  kGgufTensorAlign,          // {0} tensor, {1} byte, {2} offset, {3} alignment
  kGgufTensorPastEnd,        // {0} tensor, {1} from, {2} to, {3} ne, {4} type, {5} file bytes
  kGgufTensorTwice,          // {0} tensor, {1} byte, {2} first byte
  kGgufQuantType,            // {0} tensor, {1} type
  kGgufArch,                 // {0} architecture, {1} the supported architectures
  kGgufMissingKey,           // {0} key
  kGgufKeyRange,             // {0} key, {1} value, {2} lo, {3} hi
  kGgufKeysDiffer,           // {0} key, {1} value, {2} key, {3} value
  kGgufRopeScaling,          // {0} key, {1} value
  kGgufRopeFreqs,            // {0} value, {1} index, {2} tensor
  kGgufTensorShape,          // {0} tensor, {1} file, {2} ne, {3} needed ne
  kGgufTensorMissing,        // {0} tensor, {1} file
  kGgufTokenizerModel,       // {0} model
  kGgufTokenizerPre,         // {0} pre, {1} supported
  kGgufArrayLengths,         // {0} key, {1} count, {2} key, {3} count
  kGgufTokenId,              // {0} key, {1} value, {2} last id
  // ---- what a model does with its attention (core/model/predict.h, analysis.h, run.h ablation)
  kNoLmHead,                 // {0} model_type
  kTopKRange,                // {0} k, {1} vocab
  kPositionRange,            // {0} what ("query i", "key j", "position"), {1} value, {2} the last, {3} tokens
  kAblateLayerRange,         // {0} layer, {1} the last layer, {2} n_layer
  kAblateHeadRange,          // {0} head, {1} layer, {2} the last head, {3} n_head
  kNoSoftcapToRemove,        // {0} model_type
  kNoQkNorms,                // {0} model_type, {1} the model types with q/k norms
  kAnalysisMemory,           // {0} what, {1} estimated bytes (text), {2} the limit (text), {3} tokens
  // ---- limits of hardening round 3 (issue 44)
  kGgufCountLimit,           // {0} what, {1} value, {2} byte, {3} the most
  kGgufMemory,               // {0} what, {1} value, {2} byte, {3} estimated bytes (text), {4} the limit (text)
  kGgufTensorOverlap,        // {0} tensor, {1} from, {2} to, {3} tensor, {4} from, {5} to
  kMappedFileChanged,        // {0} bytes when opened
  kLayerRange,               // {0} layer, {1} the last layer, {2} n_layer
  kHeadRange,                // {0} head, {1} layer, {2} the last head, {3} n_head
  kSpmCharacterNotInVocab,   // {0} character (U+XXXX), {1} missing byte token
  // ---- issue 41: per-token loss, the logit lens (core/model/lens.h)
  kTokenLossMaskedLm,        // {0} model_type
  kTokenLossTooShort,        // {0} tokens
  // ---- issue 41: direct logit attribution, activation patching (core/model/attribution.h, patching.h)
  kAttributionPostNorm,      // {0} model_type
  kPatchTokenCounts,         // {0} clean tokens, {1} corrupted tokens
  kPatchNoDifference,        // {0} the metric of both runs
  kScanPositionRange,        // {0} position, {1} the last position with a next token
  kScanPositionTwice,        // {0} position
  // ---- GGUF files of the newer families (core/model/arch/*.cpp GgufArchitecture::read_keys)
  kGgufNotBuilt,             // {0} key or tensor
  kCount,
  // The first of the programs' own ids (app/common/i18n/app_messages.h); not a message. Above kCount for good.
  kAppFirst = 1000
};

// The English template of `id` ("{0} = {1} is out of range: allowed {2}..{3}"); "" for kNone and for an id
// that is not core's (kAppFirst on: the programs render those from their own table).
const char* EnglishTemplate(MsgId id);
// `pattern` with {0}, {1}, ... replaced by args[0], args[1], ... (numbered: a language may reorder them).
std::string FillTemplate(const std::string& pattern, const std::vector<std::string>& args);

// A value quoted from a file or the command line, fit for a message: NUL and other control bytes escaped
// (\x00), at most max_chars characters (UTF-8 code points), then "..." and the full length
// ("aaaa... (15728640 bytes in all)"), so a 15 MB model_type never becomes a 15 MB message.
constexpr size_t kMaxQuotedChars = 80;
std::string CappedValue(std::string_view value, size_t max_chars = kMaxQuotedChars);
// A JSON parser's exception text (nlohmann's what()) fit for a message: its "last read: '<the token so far>'" quotes
// the input (an unterminated string can be megabytes), so that part is CappedValue'd, and the rest is capped too.
std::string CappedJsonError(std::string_view what);

// One piece of a message: a template id and what fills it.
struct MessagePart {
  MsgId id = MsgId::kNone;
  std::vector<std::string> args;
};

}  // namespace attnviz
