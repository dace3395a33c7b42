"""Word lists of the relevance gate (``rlvr_ifeval.relevance``): what is never a unit of a
prompt's task text. Data only; ``relevance`` reads them as sets of folded words."""

# Function words of the languages the shared data and the synthetic env's prompts use. Every list
# is matched on whole words (as prefixes "compose" would take "compost", German's "war" "war").
STOP_WORDS_TEXT = """
the and for are but not you all any can had her was one our out has him his how its may new now
old see two way who did get let put say she too use that with have this will your from they know
want been good much some time very when come here just like long make many more most only over
such take than them well were what into also back after other which their there would about could
should these those then where while being because before between both each every through during
without within again further once same own very yours yourself ourselves themselves himself herself
itself does doing done having just shall might must upon onto off down under above below against
among across around along behind beyond toward towards whether either neither nor yet though
although unless until since per via etc even ever never always often sometimes already still
really quite rather almost enough perhaps maybe why whom whose which what whatever whoever
doesn isn aren wasn didn couldn wouldn shouldn haven hasn hadn won
der das und ist nicht ein eine einen einem einer mit von den dem des sich auf für als auch
wie bei nach aus oder wenn zum zur sie ich wir ihr sind haben werden wird kann noch nur
les des une est dans que qui pour pas sur par plus avec ses aux ces cette mais comme tout
leur nous vous ils elle sont été être avoir fait faire très aussi bien
los las del que una por para como más pero sus les este esta ser está muy también
gli della dei che per non una con come più sono anche questo questa
dos das uma com não por para mais como foi são ser seu sua também este esta
het een van dat die niet zijn voor met als aan ook maar
что это как так его она они для или уже был была было были все при без под над
"""
# Words that frame a request or name a genre: every prompt has some, and a salad can carry all.
REQUEST_WORDS_TEXT = """
write writing written rewrite draft compose create generate produce make give provide list tell
describe description explain explanation discuss summarize summarise summary answer question
questions respond reply please kindly help need want like would could should imagine pretend
suppose assume think thanks thank hello dear hey sure okay yes
essay poem poems story stories blog post article letter email mail song lyrics rap limerick riddle
joke haiku tweet speech review pitch slogan ad advertisement product description paragraph text
note memo proposal report plan guide tips name names title tagline outline rubric resume cover
template version piece short long brief detailed funny serious style tone way ways thing things
someone something anything everything people person man woman kid kids child children friend
day days year years time times world life good best better great nice new old first last next
"""
# What constraint sentences speak of: a response's form, its parts and their counts.
FORM_WORDS_TEXT = """
response responses answer answers entire whole output reply word words sentence sentences
paragraph paragraphs letter letters capital capitals capitalized capitalised lowercase uppercase
case comma commas punctuation bullet bullets point points markdown highlight highlighted
highlights section sections title titles wrap wrapped wrapping double single quotation quotes quote
quoted marks mark angular bracket brackets square json format formatted placeholder placeholders
postscript end ending finish finished start starting begin beginning phrase phrases exact exactly
least most less more fewer than times keyword keywords include includes including contain contains
containing mention use using used avoid allowed forbidden language languages english separated
separate asterisk asterisks symbol symbols split divider line lines part parts italic bold
repeat request verbatim change changing first second third fourth fifth number numbers count
once twice thrice several following below above instruction instructions total character
characters appear appears occurrence occurrences respectively nth followed ensure make sure
""" + " ".join(
    "one two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred".split()
)
