use super::*;

/// The chapter with the marks shown as `[[` and `]]`.
fn marked(chapter: &str) -> String {
    mark_non_prose(chapter)
        .replace(START, "[[")
        .replace(END, "]]")
}

#[test]
fn a_figure_is_marked_but_its_caption() {
    let ch = "Prose.\n\n<figure class=\"pw-chart\">\n<div>ticks</div>\n<figcaption>Words</figcaption>\n<details>table</details>\n</figure>\n\nMore.\n";
    assert_eq!(
        marked(ch),
        "Prose.\n\n<figure class=\"pw-chart\">[[\n<div>ticks</div>\n]]<figcaption>Words</figcaption>[[\n<details>table</details>\n]]</figure>\n\nMore.\n"
    );
    // Nothing marked after a caption that ends the figure.
    assert_eq!(
        marked("<figure><svg>x</svg><figcaption>c</figcaption></figure>\n"),
        "<figure>[[<svg>x</svg>]]<figcaption>c</figcaption></figure>\n"
    );
}

#[test]
fn labs_forms_and_noscript_are_marked_whole() {
    let ch = "<section class=\"pw-lab\" id=\"x\"><label>Size</label><figure>f<figcaption>c</figcaption></figure></section>\n\n\
              <form class=\"pw-decoder\"><label>a</label></form><noscript><p>off</p></noscript>\n";
    assert_eq!(
        marked(ch),
        "<section class=\"pw-lab\" id=\"x\">[[<label>Size</label><figure>f<figcaption>c</figcaption></figure>]]</section>\n\n\
         <form class=\"pw-decoder\">[[<label>a</label>]]</form><noscript>[[<p>off</p>]]</noscript>\n"
    );
    // Not these: another section, <figcaption> alone, <formula>.
    let other = "<section class=\"pw-other\">s</section><formula>f</formula>\n";
    assert_eq!(marked(other), other);
}

#[test]
fn a_table_of_numbers_is_marked_and_a_table_of_words_is_not() {
    let numbers = "Text.\n\n| region | time |\n| --- | ---: |\n| L1 | **1.1** ns |\n| L2 | <code>4.0</code> ns |\n\nAfter.\n";
    assert_eq!(
        marked(numbers),
        "Text.\n\n| [[region | time |\n| --- | ---: |\n| L1 | **1.1** ns |\n| L2 | <code>4.0</code> ns]] |\n\nAfter.\n"
    );
    let words = "| what you see | how to prove it |\n| --- | --- |\n| A slow start | `ru_minflt` around it; 2 runs |\n";
    assert_eq!(marked(words), words);
    // A value is escaped, so an escaped digit is still a digit; a
    // pipe inside code does not split a cell.
    let escaped = "a | b\n--|--\n`x|y` | &#50;0\n";
    assert_eq!(marked(escaped), "[[a | b\n--|--\n`x|y` | &#50;0]]\n");
}

#[test]
fn an_html_table_is_marked_when_it_holds_numbers() {
    let numbers = "<table class=\"v\"><tr><td>\n\n- 718942 faults\n\n</td></tr></table>\n";
    assert_eq!(
        marked(numbers),
        "<table class=\"v\">[[<tr><td>\n\n- 718942 faults\n\n</td></tr>]]</table>\n"
    );
    let words = "<table><tr><th>1</th><td><a href=\"x\">faults</a></td></tr></table>\n";
    assert_eq!(marked(words), words);
}

#[test]
fn code_blocks_are_left_alone() {
    let ch = "```html\n<figure>example</figure>\n| a | b |\n| - | - |\n| 1 | 2 |\n```\n\n~~~\n<form>\n~~~\nText.\n";
    assert_eq!(marked(ch), ch);
}

#[test]
fn an_unclosed_element_hides_nothing() {
    let ch = "<figure>\nno end\n\nProse.\n";
    assert_eq!(marked(ch), ch);
}
